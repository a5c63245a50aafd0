/**
 * Compute of a tracked dynamic segment from empty membership (DESIGN.md §6: 1M contacts, 100k entries, events
 * included, <= 15 s; goal <= 5 s), through the service call POST /segments/:id/compute makes. The condition has
 * a data filter and an event filter, each of which alone matches 200k contacts; together 100k. Also timed: the
 * same compute again with nothing to change, a diff that moves 10k contacts each way, and the event-bus
 * re-evaluation of a 500-contact batch.
 *
 *   npx tsx bench/segment-compute.ts [--contacts 1000000] [--noise-events 2000000] [--quick]
 *
 * Runs on an embedded PostgreSQL in a temporary directory unless DATABASE_URL is set (`npm run bench` gives
 * each benchmark a database of its own). Prints JSON and keeps a copy in bench/results/ (not for --quick).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { computeSegment, diffDynamicMembership } from '../src/modules/segments/membership.js'
import { createSegment, findSegment } from '../src/modules/segments/service.js'
import { openBenchProject } from './lib/bench-project.js'

const { values } = parseArgs({
  options: {
    contacts: { type: 'string', default: '1000000' },
    'noise-events': { type: 'string', default: '2000000' },
    quick: { type: 'boolean', default: false },
  },
})
const quick = values.quick
const contactCount = quick ? 10_000 : Number(values.contacts)
const noiseEvents = quick ? 20_000 : Number(values['noise-events'])

const seconds = (ms: number) => Number((ms / 1000).toFixed(2))

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now()
  const result = await run()
  return { result, ms: performance.now() - started }
}

async function main() {
  const { ctx, projectId, close } = await openBenchProject()
  try {
    // Contact n: plan "pro" when n % 5 = 0 (a fifth); a `purchased` event when n % 10 is 0 or 3 (a fifth);
    // both when n % 10 = 0 (a tenth). Noise: `page-view` events spread over every contact.
    const setup = await timed(async () => {
      await ctx.db.execute(sql`
        INSERT INTO contacts (project_id, email, subscribed, data, created_at)
        SELECT ${projectId}::uuid, 'user' || n || '@bench.example', n % 7 <> 0,
          jsonb_build_object('plan', CASE WHEN n % 5 = 0 THEN 'pro' ELSE 'free' END, 'n', n),
          now() - n * interval '1 second'
        FROM generate_series(1, ${contactCount}) AS n`)
      await ctx.db.execute(sql`
        INSERT INTO events (project_id, contact_id, name, data, created_at)
        SELECT ${projectId}::uuid, c.id, 'purchased', '{}'::jsonb, now() - random() * interval '60 days'
        FROM contacts c WHERE c.project_id = ${projectId} AND (c.data->>'n')::int % 10 IN (0, 3)`)
      await ctx.db.execute(sql`
        INSERT INTO events (project_id, contact_id, name, data, created_at)
        SELECT ${projectId}::uuid, c.id, 'page-view', '{}'::jsonb, now() - random() * interval '60 days'
        FROM generate_series(1, ${noiseEvents}) AS g
        JOIN contacts c ON c.project_id = ${projectId} AND c.email = 'user' || (1 + g % ${contactCount}) || '@bench.example'`)
      // The dispatcher would hand these to the segment subscriber; they are history here, not news.
      await ctx.db.execute(
        sql`UPDATE event_bus_positions SET tx_id = pg_current_xact_id(), event_id = gen_random_uuid()`,
      )
      await ctx.db.execute(sql`VACUUM ANALYZE contacts`)
      await ctx.db.execute(sql`VACUUM ANALYZE events`)
    })

    const segment = await createSegment(ctx.db, projectId, {
      name: 'Pro buyers',
      description: null,
      type: 'DYNAMIC',
      trackMembership: true,
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.plan', operator: 'equals', value: 'pro' },
              { field: 'event.purchased', operator: 'triggered' },
            ],
          },
        ],
      },
    })

    const fromEmpty = await timed(() => computeSegment(ctx.db, projectId, segment.id))
    const entryEvents = await ctx.db.execute<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM events WHERE project_id = ${projectId} AND name = 'segment.pro-buyers.entry'`,
    )
    await ctx.db.execute(sql`VACUUM ANALYZE segment_memberships`)
    const unchanged = await timed(() => computeSegment(ctx.db, projectId, segment.id))

    // A tenth of the members leave the plan and as many non-members with a purchase join it.
    const moved = Math.round(contactCount / 100)
    await ctx.db.execute(sql`
      UPDATE contacts SET data = data || jsonb_build_object('plan', CASE WHEN (data->>'n')::int % 10 = 0 THEN 'free' ELSE 'pro' END)
      WHERE project_id = ${projectId} AND (data->>'n')::int % 10 IN (0, 3) AND (data->>'n')::int <= ${moved * 10}`)
    const churn = await timed(() => computeSegment(ctx.db, projectId, segment.id))

    // The event bus's per-batch re-evaluation: 500 contacts, one statement, rolled back.
    const batch = await ctx.db.execute<{ id: string }>(sql`
      SELECT id FROM contacts WHERE project_id = ${projectId} ORDER BY random() LIMIT 500`)
    const current = await findSegment(ctx.db, projectId, segment.id)
    const reevaluate = await timed(() =>
      ctx.db
        .transaction(async (tx) => {
          await diffDynamicMembership(
            tx,
            current,
            batch.rows.map((row) => row.id),
          )
          tx.rollback()
        })
        .catch(() => undefined),
    )

    const barMs = 15_000
    const result = {
      bench: 'segment-compute',
      quick,
      contacts: contactCount,
      events: { purchased: contactCount / 5, pageViews: noiseEvents },
      cores: availableParallelism(),
      loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
      database: process.env.DATABASE_URL ? 'server (DATABASE_URL)' : 'embedded',
      setupSeconds: seconds(setup.ms),
      computeFromEmpty: {
        ...fromEmpty.result,
        entryEvents: entryEvents.rows[0]?.count ?? 0,
        seconds: seconds(fromEmpty.ms),
      },
      computeUnchanged: { ...unchanged.result, seconds: seconds(unchanged.ms) },
      computeChurn: { ...churn.result, seconds: seconds(churn.ms) },
      reevaluate500ContactsMs: Number(reevaluate.ms.toFixed(1)),
      barSeconds: barMs / 1000,
      goalSeconds: 5,
      barMet: !quick && fromEmpty.ms <= barMs,
    }
    const json = JSON.stringify(result, null, 2)
    console.log(json)
    if (!quick) {
      const resultsDir = path.join(import.meta.dirname, 'results')
      mkdirSync(resultsDir, { recursive: true })
      writeFileSync(path.join(resultsDir, 'segment-compute.json'), `${json}\n`)
    }
    if (fromEmpty.result.added !== contactCount / 10 || (entryEvents.rows[0]?.count ?? 0) !== contactCount / 10) {
      console.error('segment-compute: the compute did not enter exactly a tenth of the contacts')
      process.exitCode = 1
    }
  } finally {
    await close()
  }
}

await main()
