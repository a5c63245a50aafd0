import { sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Executor } from '../../db/client.js'
import { campaigns, contacts, domains, emails, events, projectBilling, workflows } from '../../db/schema/index.js'

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

/** The onboarding checklist: one statement of EXISTS probes, each stopping at its first row (project-led indexes). */
export async function getSetupState(db: Executor, projectId: string): Promise<SetupState> {
  const exists = (
    table:
      | typeof domains
      | typeof emails
      | typeof events
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
    ${exists(events)} AS "firstEventTracked",
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
