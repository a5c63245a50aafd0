import { and, eq, inArray } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { contactBulkJobs, contacts } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { enqueue } from '../../jobs/define.js'
import { bulkContactsJob } from './jobs.js'
import type { BulkAction, BulkView } from './schemas.js'

/**
 * Queues a bulk action. Every id must be a contact of the project (else 404 and nothing is queued), so a
 * caller cannot probe or touch another project's contacts.
 */
export async function startBulkJob(
  ctx: AppContext,
  projectId: string,
  action: BulkAction,
  contactIds: readonly string[],
): Promise<{ jobId: string; state: 'queued' }> {
  const ids = [...new Set(contactIds.map((id) => id.toLowerCase()))]
  return ctx.db.transaction(async (tx) => {
    const owned = await tx
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.projectId, projectId), inArray(contacts.id, ids)))
    if (owned.length !== ids.length) {
      const known = new Set(owned.map((contact) => contact.id))
      throw new AppError('NOT_FOUND', 'Some contacts were not found', {
        details: { missing: ids.filter((id) => !known.has(id)) },
      })
    }
    const [job] = await tx
      .insert(contactBulkJobs)
      .values({ projectId, action, contactIds: ids, total: ids.length })
      .returning({ id: contactBulkJobs.id })
    if (!job) throw new Error('bulk job insert returned nothing')
    await enqueue(ctx, bulkContactsJob, { bulkJobId: job.id }, { tx })
    return { jobId: job.id, state: 'queued' as const }
  })
}

export async function getBulkJob(db: Executor, projectId: string, jobId: string): Promise<BulkView> {
  const [job] = await db
    .select()
    .from(contactBulkJobs)
    .where(and(eq(contactBulkJobs.id, jobId), eq(contactBulkJobs.projectId, projectId)))
  if (!job) throw notFound('Bulk job')
  return {
    jobId: job.id,
    action: job.action,
    state: job.state,
    total: job.total,
    processed: job.processed,
    affected: job.affected,
    progress: job.total === 0 ? 100 : Math.floor((job.processed / job.total) * 100),
    error: job.error,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  }
}
