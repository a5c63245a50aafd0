import { sql } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { Database, Executor } from '../../db/client.js'
import { transactionRetryingDeadlock } from '../../db/deadlock-retry.js'
import { AppError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import { deleteProjectUploads } from '../uploads/service.js'
import { requireProjectRole } from './member-role.js'

/**
 * Every table with a `project_id`, sorted by what a reset does with it. Both lists together must name every such
 * table (a test checks it against the database), so a table added later is a decision, not an accident.
 * Wiped in this order: children before the rows their foreign keys would otherwise touch (emails before contacts,
 * so deleting contacts does not first null the contact of every email; workflows before templates, likewise).
 */
export const resetWipedTables = [
  // The delivery log of the project's webhooks (their attempts go with them); the endpoints themselves are kept.
  'webhook_messages',
  // Before the emails it belongs to (it would go with them by cascade, a row at a time).
  'email_history',
  'emails',
  // After the emails that point to them: messages taken over SMTP submission.
  'submitted_messages',
  'captured_messages',
  'idempotency_keys',
  'inbound_emails',
  'workflows',
  'workflow_executions',
  'campaigns',
  'campaign_event_counts',
  'segments',
  'events',
  'event_counts_hourly',
  'contact_imports',
  'contact_bulk_jobs',
  'contacts',
  'templates',
  'suppressions',
  'uploads',
] as const

/**
 * Kept by a reset: the project itself, its team, domains, webhook endpoints and billing. The reputation record and this period's
 * billing usage stay too: a reset must not launder a bounce rate, lift a suspension or refill a monthly cap.
 */
export const resetKeptTables = [
  'projects',
  'memberships',
  'invitations',
  // Kept with the invitations they mailed: a pending one's email stays in the mailbox of its project's admins.
  'account_emails',
  'domains',
  // Where the project's own systems listen: configuration, like its domains.
  'webhook_endpoints',
  'project_billing',
  'billing_usage',
  'billing_webhook_events',
  'reputation_counts',
  'project_suspensions',
  // The links of mail already delivered: recipients still hold it, and its links keep leading where they did.
  'tracked_links',
] as const

/**
 * The project's jobs in pg-boss (queued, running or kept as history): they carry the project id, or the id of one
 * of its imports or bulk jobs. pg-boss lives in the same database, so they go in the same transaction as the rows.
 */
async function deleteProjectJobs(tx: Executor, projectId: string): Promise<void> {
  await tx.execute(sql`
    DELETE FROM pgboss.job
    WHERE data->>'projectId' = ${projectId}
      OR data->>'importId' IN (SELECT id::text FROM contact_imports WHERE project_id = ${projectId})
      OR data->>'bulkJobId' IN (SELECT id::text FROM contact_bulk_jobs WHERE project_id = ${projectId})`)
}

/** Plunk's reset and delete take no body; ours ask for the project's name so a stray request cannot wipe one. */
function assertConfirmation(projectName: string, confirm: string): void {
  if (confirm !== projectName) {
    throw new AppError('BAD_REQUEST', 'The confirmation does not match the project name', {
      errors: [{ field: 'confirm', message: 'must be the exact name of the project', code: 'invalid_confirmation' }],
    })
  }
}

type LifecycleDeps = { db: Database; config: Config; log: Logger }

/**
 * Wipes the project's data and queued work in one transaction (everything in `resetWipedTables`, the outbox's
 * unsent emails and the project's jobs), keeping its keys, members, domains, settings and billing. Uploaded
 * images go with the templates that show them, files included.
 * Only an owner may; `confirm` must be the project's name.
 */
export async function resetProject(
  deps: LifecycleDeps,
  userId: string,
  projectId: string,
  confirm: string,
): Promise<void> {
  // Run again on a deadlock, as a delete is (below).
  await transactionRetryingDeadlock(deps.db, async (tx) => {
    const project = await requireProjectRole(tx, userId, projectId, ['OWNER'], { lock: true })
    assertConfirmation(project.name, confirm)
    await deleteProjectJobs(tx, projectId)
    // Files first: the rows would cascade, their files would stay behind.
    await deleteProjectUploads({ ...deps, db: tx }, projectId)
    for (const table of resetWipedTables) {
      await tx.execute(sql`DELETE FROM ${sql.identifier(table)} WHERE project_id = ${projectId}`)
    }
    // The fan-out pacing slot belonged to campaigns that no longer exist.
    await tx.execute(sql`UPDATE projects SET campaign_slot_at = NULL, updated_at = now() WHERE id = ${projectId}`)
  })
}

/**
 * Deletes the project and everything it owns: every table references it with ON DELETE CASCADE (captured mail
 * included); its pg-boss jobs, which cannot reference it, go first in the same transaction. Returns the Stripe
 * subscription it had, for the caller to cancel once the delete has committed.
 */
export async function deleteProject(
  deps: LifecycleDeps,
  userId: string,
  projectId: string,
  confirm: string,
): Promise<{ stripeSubscriptionId: string | null }> {
  // The project row is locked first, then its rows cascade; the outbox locks an email and then reads its project
  // (a key share): the two can meet in opposite order, and PostgreSQL aborts one. A second run finds the outbox
  // done. The upload files a first run removed stay removed, as their rows are about to be.
  return transactionRetryingDeadlock(deps.db, async (tx) => {
    const project = await requireProjectRole(tx, userId, projectId, ['OWNER'], { lock: true })
    assertConfirmation(project.name, confirm)
    const billing = await tx.execute<{ stripe_subscription_id: string | null }>(
      sql`SELECT stripe_subscription_id FROM project_billing WHERE project_id = ${projectId}`,
    )
    await deleteProjectJobs(tx, projectId)
    await deleteProjectUploads({ ...deps, db: tx }, projectId)
    await tx.execute(sql`DELETE FROM projects WHERE id = ${projectId}`)
    return { stripeSubscriptionId: billing.rows[0]?.stripe_subscription_id ?? null }
  })
}
