import { sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Executor } from '../../db/client.js'
import { campaigns, contacts, domains, emails, projectBilling, workflows } from '../../db/schema/index.js'
import { internalEventNameSql } from '../analytics/sql.js'

export const setupStateView = z.object({
  domainAdded: z.boolean(),
  domainVerified: z.boolean(),
  firstEmailSent: z.boolean(),
  firstEventTracked: z.boolean(),
  firstContact: z.boolean(),
  firstCampaign: z.boolean(),
  firstWorkflow: z.boolean(),
  /** Plunk's name: the project has a Stripe subscription that is not over (any status but canceled or expired). */
  hasSubscription: z.boolean(),
})
export type SetupState = z.infer<typeof setupStateView>

/**
 * Whether the project has a custom event (from /v1/track or the dashboard), not only the ones the service emits
 * itself: the first send alone writes `email.sent` and `contact.subscribed`, and tracked nothing. A skip scan over the
 * project's distinct names in the (project_id, name, created_at) index, stopping at the first custom one, so
 * millions of `email.*` rows are never walked one by one.
 */
function customEventExists(projectId: string) {
  // The analytics twin of the reserved names leaves out `billing.*`, which the caps write to the log too.
  const internal = (column: string) =>
    sql`(${internalEventNameSql(sql.raw(column))} OR ${sql.raw(column)} LIKE 'billing.%')`
  return sql`EXISTS (
    WITH RECURSIVE walk(name) AS (
      (SELECT name FROM events WHERE project_id = ${projectId} ORDER BY name LIMIT 1)
      UNION ALL
      SELECT (SELECT e.name FROM events e WHERE e.project_id = ${projectId} AND e.name > walk.name ORDER BY e.name LIMIT 1)
      FROM walk WHERE walk.name IS NOT NULL AND ${internal('walk.name')}
    )
    SELECT 1 FROM walk WHERE walk.name IS NOT NULL AND NOT ${internal('walk.name')})`
}

/** The onboarding checklist: one statement of EXISTS probes, each stopping at its first row (project-led indexes). */
export async function getSetupState(db: Executor, projectId: string): Promise<SetupState> {
  const exists = (
    table:
      | typeof domains
      | typeof emails
      | typeof contacts
      | typeof campaigns
      | typeof workflows
      | typeof projectBilling,
    extra = sql``,
  ) => sql`EXISTS (SELECT 1 FROM ${table} WHERE ${table.projectId} = ${projectId} ${extra})`
  const result = await db.execute<Record<keyof SetupState, boolean>>(sql`SELECT
    ${exists(domains)} AS "domainAdded",
    ${exists(domains, sql`AND ${domains.status} = 'VERIFIED'`)} AS "domainVerified",
    ${exists(emails, sql`AND ${emails.sentAt} IS NOT NULL`)} AS "firstEmailSent",
    ${customEventExists(projectId)} AS "firstEventTracked",
    ${exists(contacts)} AS "firstContact",
    ${exists(campaigns)} AS "firstCampaign",
    ${exists(workflows)} AS "firstWorkflow",
    ${exists(
      projectBilling,
      sql`AND ${projectBilling.stripeSubscriptionId} IS NOT NULL
        AND ${projectBilling.subscriptionStatus} NOT IN ('canceled', 'incomplete_expired')`,
    )} AS "hasSubscription"`)
  const row = result.rows[0]
  if (!row) throw new Error('setup state query returned nothing')
  return row
}
