import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { AppError } from '../../errors.js'
import { publishEvents } from '../../events/bus.js'
import { type BillingCategory, currentPeriodStart, limitColumn, warningRatio } from './categories.js'

const billingWarningEvent = 'billing.limit_warning'
/** A scheduled campaign that would have passed the cap at its start, sent back to DRAFT. */
export const campaignBlockedEvent = 'billing.campaign_blocked'

/** Rows a count is spread over: enough that a project's concurrent sends rarely pick the same one. */
const usageShards = 16

type CappedRow = { project_id: string; cap: number }
type CountedRow = { project_id: string; period: string; used: number; cap: number }

/** This period's usage of `category`, summed over its shards: the expression for one project's row. */
const usedThisPeriod = (category: BillingCategory, projectId: SQL) => sql`(
  SELECT coalesce(sum(used), 0) FROM billing_usage
  WHERE project_id = ${projectId} AND period = ${currentPeriodStart} AND category = ${category})`

/**
 * The INSERT that adds each count of `source` (a relation of `project_id, n`) to shard `shard` of this period's usage,
 * except for the projects in the statement's `capped` CTE; in project order, as every usage writer locks its rows.
 */
const addUncapped = (category: BillingCategory, source: SQL, shard: SQL) => sql`
      INSERT INTO billing_usage AS u (project_id, period, category, shard, used)
      SELECT project_id, ${currentPeriodStart}, ${category}, ${shard}, n FROM ${source}
      WHERE project_id NOT IN (SELECT project_id FROM capped)
      ORDER BY project_id
      ON CONFLICT (project_id, period, category, shard) DO UPDATE SET used = u.used + excluded.used`

/** The usage row a statement adds its counts to: a random one of the period's shards. */
export function randomUsageShard(): number {
  return Math.floor(Math.random() * usageShards)
}

/**
 * `addUsage`'s uncapped half, for a statement that queues mail and counts it in the same round trip: CTEs that add
 * each project's count of `counts` (a query of `project_id, n`) to shard `shard` of this period's usage of
 * `category`, and name (`capped`) the projects that have a cap, which it leaves alone: the caller counts those
 * with `addUsage`, whose lock on their billing row makes the cap exact. A cap set while such a statement runs
 * applies from the next one, as with `addUsage`.
 */
export function uncappedUsageCtes(category: BillingCategory, counts: SQL, shard: SQL): SQL {
  return sql`counts AS (${counts}), capped AS (
      SELECT b.project_id FROM project_billing AS b JOIN counts USING (project_id)
      WHERE b.${limitColumn[category]} IS NOT NULL
    ), counted AS (${addUncapped(category, sql`counts`, shard)})`
}

/**
 * Adds `count` emails per project to this period's usage of `category` and returns the projects it refused:
 * those whose cap the addition would pass. Run it inside the transaction that queues the emails, late, since the
 * rows it writes stay locked until the commit.
 *
 * A project without a cap adds to one random shard row, in the same statement that looks for caps, so its
 * concurrent sends rarely wait on each other. A capped project's sends are serialised on its `project_billing`
 * row by that statement; the sum of its shards read after that lock (a new statement, so a new snapshot) is
 * exact, and two senders can never pass the cap together.
 */
export async function addUsage(
  tx: Executor,
  category: BillingCategory,
  counts: ReadonlyMap<string, number>,
): Promise<Set<string>> {
  // Sorted, so transactions counting for several projects lock their rows in one order and cannot deadlock.
  const entries = [...counts].filter(([, count]) => count > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  if (entries.length === 0) return new Set()
  const shard = randomUsageShard()
  const capped = await tx.execute<CappedRow>(sql`
    WITH wanted AS (
      SELECT * FROM unnest(${sql.param(entries.map(([projectId]) => projectId))}::uuid[],
        ${sql.param(entries.map(([, count]) => count))}::bigint[]) AS w(project_id, n)
    ), capped AS (
      SELECT b.project_id, b.${limitColumn[category]}::float8 AS cap
      FROM project_billing AS b JOIN wanted USING (project_id)
      WHERE b.${limitColumn[category]} IS NOT NULL
      ORDER BY b.project_id FOR NO KEY UPDATE OF b
    ), uncapped AS (${addUncapped(category, sql`wanted`, sql`${shard}`)})
    SELECT project_id, cap FROM capped`)
  if (capped.rows.length === 0) return new Set()
  const wanted = capped.rows.map((row) => ({ ...row, n: counts.get(row.project_id) ?? 0 }))
  const result = await tx.execute<CountedRow>(sql`
    WITH wanted AS (
      SELECT w.project_id, w.n, w.cap, ${usedThisPeriod(category, sql`w.project_id`)} AS used
      FROM unnest(${sql.param(wanted.map((row) => row.project_id))}::uuid[],
        ${sql.param(wanted.map((row) => row.n))}::bigint[], ${sql.param(wanted.map((row) => row.cap))}::float8[])
        AS w(project_id, n, cap)
    )
    INSERT INTO billing_usage AS u (project_id, period, category, shard, used)
    SELECT project_id, ${currentPeriodStart}, ${category}, ${shard}, n FROM wanted WHERE used + n <= cap
    ORDER BY project_id
    ON CONFLICT (project_id, period, category, shard) DO UPDATE SET used = u.used + excluded.used
    RETURNING u.project_id, u.period::text AS period,
      (SELECT used + n FROM wanted WHERE wanted.project_id = u.project_id)::float8 AS used,
      (SELECT cap FROM wanted WHERE wanted.project_id = u.project_id) AS cap`)
  const warn = result.rows.filter((row) => row.used >= row.cap * warningRatio)
  if (warn.length > 0) await warnProjects(tx, category, warn)
  const counted = new Set(result.rows.map((row) => row.project_id))
  return new Set(wanted.map((row) => row.project_id).filter((projectId) => !counted.has(projectId)))
}

/**
 * The 80 % warning: a `billing.limit_warning` event in the project's event log (the activity feed shows it, a
 * workflow can be triggered by it), once per period and category, claimed through `warned_at` of shard 0.
 */
async function warnProjects(tx: Executor, category: BillingCategory, rows: readonly CountedRow[]): Promise<void> {
  for (const row of rows) {
    const claimed = await tx.execute(sql`
      INSERT INTO billing_usage AS u (project_id, period, category, shard, used, warned_at)
      VALUES (${row.project_id}, ${row.period}::date, ${category}, 0, 0, now())
      ON CONFLICT (project_id, period, category, shard) DO UPDATE SET warned_at = now() WHERE u.warned_at IS NULL
      RETURNING 1`)
    if (claimed.rows.length === 0) continue
    await publishEvents(tx, [
      {
        projectId: row.project_id,
        contactId: null,
        name: billingWarningEvent,
        data: {
          category,
          limit: row.cap,
          usage: row.used,
          percentage: Math.round(((row.used / row.cap) * 10_000) / 100),
          period: row.period,
        },
      },
    ])
  }
}

/** The error of a refused send, naming the cap, its size and what is used of it this period. */
export async function limitExceeded(
  db: Executor,
  projectId: string,
  category: BillingCategory,
  requested: number,
): Promise<AppError> {
  const result = await db.execute<{ cap: number | null; used: number; period: string }>(sql`
    SELECT b.${limitColumn[category]}::float8 AS cap, ${usedThisPeriod(category, sql`${projectId}::uuid`)}::float8 AS used,
      ${currentPeriodStart}::text AS period
    FROM (SELECT 1) AS one LEFT JOIN project_billing AS b ON b.project_id = ${projectId}`)
  const row = result.rows[0]
  const limit = row?.cap ?? 0
  const used = row?.used ?? 0
  return new AppError(
    'BILLING_LIMIT_EXCEEDED',
    `The project's monthly ${category} limit of ${limit} emails is reached (${used} used this month, ${requested} more requested)`,
    {
      details: { category, limit, usage: used, requested, period: row?.period },
      suggestion: 'Raise the limit with PUT /users/@me/projects/:id/billing-limits, or wait for the next month',
    },
  )
}

/** `addUsage` for one project that throws BILLING_LIMIT_EXCEEDED when refused (the transaction then rolls back). */
export async function chargeUsage(
  tx: Executor,
  projectId: string,
  category: BillingCategory,
  count: number,
): Promise<void> {
  const refused = await addUsage(tx, category, new Map([[projectId, count]]))
  if (refused.size > 0) throw await limitExceeded(tx, projectId, category, count)
}

/** Whether `count` more emails would fit the cap now, without counting them (a campaign scheduled for later). */
export async function assertWithinLimit(
  db: Executor,
  projectId: string,
  category: BillingCategory,
  count: number,
): Promise<void> {
  const result = await db.execute<{ fits: boolean }>(sql`
    SELECT b.${limitColumn[category]} IS NULL
      OR ${usedThisPeriod(category, sql`${projectId}::uuid`)} + ${count} <= b.${limitColumn[category]} AS fits
    FROM (SELECT 1) AS one LEFT JOIN project_billing AS b ON b.project_id = ${projectId}`)
  if (result.rows[0]?.fits === false) throw await limitExceeded(db, projectId, category, count)
}
