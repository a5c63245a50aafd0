/**
 * Reputation rates on a big project: the hourly rollup against counting the events table directly.
 *
 *   npx tsx bench/reputation.ts [--size 1000000]
 *
 * Fills one project with `size` events over 30 days (90 % email.sent, 5 % permanent and 1 % transient
 * bounces, 0.1 % complaints, the rest deliveries), builds the rollup through the real subscriber, then times
 * the security endpoint's rate query against the three windows counted from `events` with its
 * (project_id, name, created_at) index. With DATABASE_URL it uses a database of its own on that server,
 * dropped at the end; otherwise an embedded PostgreSQL in a temporary directory.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { loadConfig } from '../src/config.js'
import { createAppContext } from '../src/context.js'
import { projects } from '../src/db/schema/index.js'
import type { BusEvent } from '../src/events/bus.js'
import { createLogger } from '../src/logger.js'
import { generateProjectKeys } from '../src/modules/projects/keys.js'
import { projectRates } from '../src/modules/reputation/rates.js'
import { reputationSubscriber } from '../src/modules/reputation/subscriber.js'
import { reportResult } from './lib/result.js'

const { values } = parseArgs({ options: { size: { type: 'string', default: '1000000' } } })
const size = Number(values.size)
const batch = 500

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return Number((sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(2))
}

async function timeIt(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await fn()
    samples.push(performance.now() - started)
  }
  return median(samples)
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
  const serverUrl = process.env.DATABASE_URL
  const benchDatabase = `mailroom_bench_${randomBytes(4).toString('hex')}`
  let databaseUrl: string | undefined
  if (serverUrl) {
    await adminQuery(serverUrl, `CREATE DATABASE ${benchDatabase}`)
    const url = new URL(serverUrl)
    url.pathname = `/${benchDatabase}`
    databaseUrl = url.toString()
  }
  const config = loadConfig({
    ...process.env,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // Only the rates are measured here; the guard would pause the project half-way.
    REPUTATION_GUARD: 'false',
  })
  const ctx = await createAppContext(config, createLogger(config), 'api')
  try {
    const [project] = await ctx.db
      .insert(projects)
      .values({ name: 'bench', ...generateProjectKeys() })
      .returning()
    if (!project) throw new Error('no project')

    let started = performance.now()
    await ctx.db.execute(sql`
      INSERT INTO events (project_id, name, data, created_at, tx_id)
      SELECT ${project.id}::uuid,
        CASE WHEN i % 1000 < 900 THEN 'email.sent' WHEN i % 1000 < 960 THEN 'email.bounce'
             WHEN i % 1000 < 961 THEN 'email.complaint' ELSE 'email.delivery' END,
        CASE WHEN i % 1000 BETWEEN 900 AND 949 THEN '{"bounceType":"Permanent"}'::jsonb
             WHEN i % 1000 BETWEEN 950 AND 959 THEN '{"bounceType":"Transient"}'::jsonb ELSE '{}'::jsonb END,
        now() - (i::float8 / ${size}) * interval '30 days', '0'
      FROM generate_series(1, ${size}) AS i`)
    await ctx.db.execute(sql`ANALYZE events`)
    const fillMs = performance.now() - started

    // The rollup as the dispatcher builds it: the real subscriber, 500 events per transaction.
    started = performance.now()
    const rows = await ctx.db.execute<{ id: string; name: string; data: Record<string, unknown>; created_at: string }>(
      sql`SELECT id, name, data, created_at FROM events WHERE project_id = ${project.id} ORDER BY created_at`,
    )
    const events: BusEvent[] = rows.rows.map((row) => ({
      id: row.id,
      projectId: project.id,
      contactId: null,
      name: row.name,
      data: row.data,
      createdAt: new Date(row.created_at),
    }))
    const readMs = performance.now() - started
    started = performance.now()
    for (let offset = 0; offset < events.length; offset += batch) {
      await ctx.db.transaction((tx) =>
        reputationSubscriber(events.slice(offset, offset + batch), { ctx, tx, afterCommit: () => {} }),
      )
    }
    const subscriberMs = performance.now() - started
    await ctx.db.execute(sql`ANALYZE reputation_counts`)

    const rollupMs = await timeIt(21, () => projectRates(ctx.db, project.id))
    const rates = await projectRates(ctx.db, project.id)
    const countWindow = (since: string) =>
      ctx.db.execute(sql`
        SELECT count(*) FILTER (WHERE name = 'email.sent') AS sent,
               count(*) FILTER (WHERE name = 'email.bounce' AND data->>'bounceType' = 'Permanent') AS bounces,
               count(*) FILTER (WHERE name = 'email.complaint') AS complaints
        FROM events
        WHERE project_id = ${project.id} AND name IN ('email.sent', 'email.bounce', 'email.complaint')
          AND created_at >= now() - ${since}::interval`)
    const directMs = await timeIt(5, () =>
      Promise.all([countWindow('24 hours'), countWindow('7 days'), countWindow('100 years')]),
    )

    const result = {
      bench: 'reputation',
      size,
      loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
      database: config.databaseUrl ? 'DATABASE_URL' : 'embedded',
      fillMs: Math.round(fillMs),
      rollupRows: (await ctx.db.execute(sql`SELECT count(*)::int AS n FROM reputation_counts`)).rows[0],
      subscriber: {
        events: events.length,
        readMs: Math.round(readMs),
        ms: Math.round(subscriberMs),
        microsecondsPerEvent: Number(((subscriberMs * 1000) / events.length).toFixed(2)),
      },
      securityRatesQueryMs: rollupMs,
      directCountsFromEventsMs: directMs,
      rates,
      at: new Date().toISOString(),
    }
    reportResult('reputation.json', result)
  } finally {
    await ctx.close()
    if (serverUrl) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${benchDatabase}`)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
