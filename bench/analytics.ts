/**
 * Analytics and activity queries on a large event log: 1M events over 30 days (by default) in one project,
 * counted into the rollups as the dispatcher would, then each query timed (median of several runs), next to
 * the plain COUNT ... GROUP BY over `events` that the rollups replace.
 *
 *   npx tsx bench/analytics.ts [--size 1000000] [--runs 7]
 *
 * Runs an embedded PostgreSQL in a temporary directory. Prints JSON and keeps a copy in bench/results/.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../src/config.js'
import { createAppContext } from '../src/context.js'
import { projects } from '../src/db/schema/index.js'
import { createLogger } from '../src/logger.js'
import {
  countRecentActivity,
  getActivityStats,
  listActivity,
  listActivityTypes,
} from '../src/modules/activity/service.js'
import { countEvents } from '../src/modules/analytics/rollup-sql.js'
import { getTimeseries, getTopCampaigns, getTopEvents } from '../src/modules/analytics/service.js'
import { generateProjectKeys } from '../src/modules/projects/keys.js'
import { medianMs } from './lib/median.js'

const { values } = parseArgs({
  options: { size: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '7' } },
})
const size = Number(values.size)
const runs = Number(values.runs)
const dayMs = 24 * 60 * 60 * 1000

function median(run: () => Promise<unknown>): Promise<number> {
  return medianMs(run, runs)
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
  const config = loadConfig({ ...process.env, DATABASE_URL: undefined, DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
  const ctx = await createAppContext(config, createLogger(config), 'api')
  const [project] = await ctx.db
    .insert(projects)
    .values({ name: 'bench', ...generateProjectKeys() })
    .returning()
  if (!project) throw new Error('no project')
  const campaigns = Array.from({ length: 20 }, () => crypto.randomUUID())

  // Email events dominate, as in a sending project; about one in seven is a custom event of 12 names.
  let started = performance.now()
  await ctx.db.execute(sql`
    INSERT INTO events (project_id, name, data, created_at, tx_id)
    SELECT ${project.id}::uuid,
      CASE WHEN r < 0.40 THEN 'email.sent' WHEN r < 0.65 THEN 'email.delivery' WHEN r < 0.80 THEN 'email.open'
        WHEN r < 0.85 THEN 'email.click' WHEN r < 0.86 THEN 'email.bounce' ELSE 'custom-' || (i % 12) END,
      jsonb_build_object('isFirstOpen', i % 3 = 0, 'isFirstClick', i % 2 = 0,
        'campaignId', (${sql.param(campaigns)}::text[])[1 + i % 40]),
      now() - random() * interval '30 days', '0'
    FROM (SELECT i, random() AS r FROM generate_series(1, ${size}) AS i) generated`)
  const insertMs = performance.now() - started
  await ctx.db.execute(sql`ANALYZE events`)

  // What migration 0004 does for existing events, and what the subscriber does per batch.
  started = performance.now()
  const everything = sql`e.project_id = ${project.id}`
  await ctx.db.execute(countEvents(everything))
  const backfillMs = performance.now() - started
  await ctx.db.execute(sql`ANALYZE event_counts_hourly`)
  const batchIds = await ctx.db.execute<{ id: string }>(sql`SELECT id FROM events LIMIT 500`)
  const batch = sql`e.id = ANY(${sql.param(batchIds.rows.map((row) => row.id))}::uuid[])`
  const subscriberBatchMs = await median(() =>
    ctx.db
      .transaction(async (tx) => {
        await tx.execute(countEvents(batch))
        tx.rollback()
      })
      .catch(() => undefined),
  )
  const rollupRows = await ctx.db.execute<{ rows: number }>(sql`SELECT count(*)::int AS rows FROM event_counts_hourly`)

  const now = Date.now()
  const monthAgo = new Date(now - 30 * dayMs - 17 * 60_000)
  const first = await listActivity(ctx.db, project.id, { limit: 50 })
  const timings = {
    'timeseries, 30 days daily': await median(() => getTimeseries(ctx.db, project.id, {})),
    'timeseries, 2 days hourly': await median(() =>
      getTimeseries(ctx.db, project.id, { from: new Date(now - 2 * dayMs), granularity: 'hour' }),
    ),
    'activity stats, 30 days (partial hours at both ends)': await median(() =>
      getActivityStats(ctx.db, project.id, { startDate: monthAgo }),
    ),
    'recent count, 24 hours': await median(() => countRecentActivity(ctx.db, project.id, { minutes: 24 * 60 })),
    'top events, 30 days': await median(() => getTopEvents(ctx.db, project.id, { limit: 10 })),
    'top campaigns by open rate': await median(() =>
      getTopCampaigns(ctx.db, project.id, { metric: 'openRate', limit: 10 }),
    ),
    'activity types': await median(() => listActivityTypes(ctx.db, project.id)),
    'feed, first page of 50 with total': await median(() => listActivity(ctx.db, project.id, { limit: 50 })),
    'feed, next page of 50': await median(() => listActivity(ctx.db, project.id, { limit: 50, cursor: first.cursor })),
    'feed, opens only, first page with total': await median(() =>
      listActivity(ctx.db, project.id, { limit: 50, types: ['email.opened'] }),
    ),
    'raw COUNT GROUP BY name over events, 30 days (what the rollup replaces)': await median(() =>
      ctx.db.execute(sql`
        SELECT name, count(*) FROM events WHERE project_id = ${project.id} AND created_at >= ${monthAgo}
        GROUP BY name`),
    ),
  }

  const result = {
    bench: 'analytics',
    events: size,
    cores: availableParallelism(),
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
    database: 'embedded',
    insertSeconds: Number((insertMs / 1000).toFixed(1)),
    rollupBackfillSeconds: Number((backfillMs / 1000).toFixed(1)),
    rollupRows: rollupRows.rows[0]?.rows,
    subscriberMsPer500Events: subscriberBatchMs,
    medianMs: timings,
  }
  const json = JSON.stringify(result, null, 2)
  console.log(json)
  mkdirSync(path.join('bench', 'results'), { recursive: true })
  writeFileSync(path.join('bench', 'results', 'analytics.json'), `${json}\n`)
  await ctx.close()
  rmSync(dataDir, { recursive: true, force: true })
}

await main()
