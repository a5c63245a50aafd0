import { sql } from 'drizzle-orm'
import type { Database, Executor } from '../../db/client.js'
import {
  type BillingCategory,
  billingCategories,
  currentPeriodStart,
  usagePercentage,
  warningRatio,
} from './categories.js'
import type { BillingConsumptionView, BillingLimitsBody, BillingLimitsView, CategoryState } from './schemas.js'

type BillingRow = {
  transactional_limit: number | null
  campaigns_limit: number | null
  workflows_limit: number | null
  inbound_limit: number | null
  subscription_status: string | null
  payment_paused: boolean
  period_start: string
  period_end: string
}

type Snapshot = {
  limits: Record<BillingCategory, number | null>
  usage: Record<BillingCategory, number>
  subscriptionStatus: string | null
  paymentPaused: boolean
  period: { start: string; end: string }
}

/** The caps and this period's usage of a project: two indexed reads, never a scan of its emails. */
async function readSnapshot(db: Executor, projectId: string): Promise<Snapshot> {
  const billing = await db.execute<BillingRow>(sql`
    SELECT b.transactional_limit, b.campaigns_limit, b.workflows_limit, b.inbound_limit, b.subscription_status,
      b.payment_paused_at IS NOT NULL AS payment_paused,
      ${currentPeriodStart}::text AS period_start,
      (${currentPeriodStart} + interval '1 month')::date::text AS period_end
    FROM (SELECT 1) AS one LEFT JOIN project_billing AS b ON b.project_id = ${projectId}`)
  const usage = await db.execute<{ category: BillingCategory; used: number }>(sql`
    SELECT category, sum(used)::float8 AS used FROM billing_usage
    WHERE project_id = ${projectId} AND period = ${currentPeriodStart} GROUP BY category`)
  const row = billing.rows[0]
  const used = new Map(usage.rows.map((entry) => [entry.category, entry.used]))
  return {
    limits: {
      transactional: row?.transactional_limit ?? null,
      campaigns: row?.campaigns_limit ?? null,
      workflows: row?.workflows_limit ?? null,
      inbound: row?.inbound_limit ?? null,
    },
    usage: {
      transactional: used.get('transactional') ?? 0,
      campaigns: used.get('campaigns') ?? 0,
      workflows: used.get('workflows') ?? 0,
      inbound: used.get('inbound') ?? 0,
    },
    subscriptionStatus: row?.subscription_status ?? null,
    paymentPaused: row?.payment_paused ?? false,
    period: { start: row?.period_start ?? '', end: row?.period_end ?? '' },
  }
}

function categoryState(limit: number | null, usage: number): CategoryState {
  return {
    limit,
    usage,
    percentage: usagePercentage(usage, limit),
    isWarning: limit !== null && usage >= limit * warningRatio,
    isBlocked: limit !== null && usage >= limit,
  }
}

function limitsView(snapshot: Snapshot): BillingLimitsView {
  const state = (category: BillingCategory) => categoryState(snapshot.limits[category], snapshot.usage[category])
  return {
    transactional: state('transactional'),
    campaigns: state('campaigns'),
    workflows: state('workflows'),
    inbound: state('inbound'),
    currency: null,
  }
}

/** Any member may read the caps. */
export async function getBillingLimits(db: Database, projectId: string): Promise<BillingLimitsView> {
  return limitsView(await readSnapshot(db, projectId))
}

/** Owners and admins set all four caps at once; caps work whether or not Stripe is on. */
export async function setBillingLimits(
  db: Database,
  projectId: string,
  input: BillingLimitsBody,
): Promise<BillingLimitsView> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`
      INSERT INTO project_billing (project_id, transactional_limit, campaigns_limit, workflows_limit, inbound_limit)
      VALUES (${projectId}, ${input.transactional}, ${input.campaigns}, ${input.workflows}, ${input.inbound})
      ON CONFLICT (project_id) DO UPDATE SET transactional_limit = excluded.transactional_limit,
        campaigns_limit = excluded.campaigns_limit, workflows_limit = excluded.workflows_limit,
        inbound_limit = excluded.inbound_limit, updated_at = now()`)
    return limitsView(await readSnapshot(tx, projectId))
  })
}

/** This calendar month's accepted emails per category, from the usage counters. */
export async function getBillingConsumption(db: Database, projectId: string): Promise<BillingConsumptionView> {
  const snapshot = await readSnapshot(db, projectId)
  const records = billingCategories.map((category) => ({
    category,
    usage: snapshot.usage[category],
    limit: snapshot.limits[category],
    percentage: usagePercentage(snapshot.usage[category], snapshot.limits[category]),
  }))
  return {
    period: snapshot.period,
    usage: { total: records.reduce((sum, record) => sum + record.usage, 0), records },
    credits: null,
    upcomingInvoice: null,
    subscription: { status: snapshot.subscriptionStatus, paymentPaused: snapshot.paymentPaused },
  }
}
