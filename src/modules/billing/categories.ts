import { type SQL, sql } from 'drizzle-orm'
import type { billingCategory } from '../../db/schema/index.js'

export type BillingCategory = (typeof billingCategory.enumValues)[number]

export const billingCategories = [
  'transactional',
  'campaigns',
  'workflows',
  'inbound',
] as const satisfies readonly BillingCategory[]

/** The cap column of each category in `project_billing` (fixed names, never user input). */
export const limitColumn: Record<BillingCategory, SQL> = {
  transactional: sql.raw('transactional_limit'),
  campaigns: sql.raw('campaigns_limit'),
  workflows: sql.raw('workflows_limit'),
  inbound: sql.raw('inbound_limit'),
}

/** Consumption periods are calendar months in UTC, read from the database clock so every process agrees. */
export const currentPeriodStart = sql`(date_trunc('month', now() AT TIME ZONE 'UTC'))::date`

/** The share of a cap at which the project is warned once per period and category. */
export const warningRatio = 0.8

export function usagePercentage(usage: number, limit: number | null): number {
  if (limit === null) return 0
  if (limit === 0) return usage > 0 ? 100 : 0
  return Math.round((usage / limit) * 10_000) / 100
}
