import { and, eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import { contactBulkJobs } from '../../db/schema/index.js'
import { publishEvents } from '../../events/bus.js'
import { subscriptionEventName } from '../../events/names.js'
import { deleteContactsByIds, setSubscriptionForIds } from './sql.js'

/** The job: one set-based statement and its events, committed with the job's completion. */
export async function runBulkJob(ctx: AppContext, jobId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [job] = await tx
      .select()
      .from(contactBulkJobs)
      .where(and(eq(contactBulkJobs.id, jobId), sql`${contactBulkJobs.state} IN ('queued', 'running')`))
      .for('update')
    if (!job) return
    let affected: number
    if (job.action === 'delete') {
      affected = await deleteContactsByIds(tx, job.projectId, job.contactIds)
    } else {
      const subscribed = job.action === 'subscribe'
      const changed = await setSubscriptionForIds(tx, job.projectId, job.contactIds, subscribed)
      const flipped = changed.filter((row) => row.flipped)
      await publishEvents(
        tx,
        flipped.map((row) => ({
          projectId: job.projectId,
          contactId: row.id,
          name: subscriptionEventName(subscribed),
        })),
      )
      affected = flipped.length
    }
    await tx
      .update(contactBulkJobs)
      .set({ state: 'completed', processed: job.total, affected, finishedAt: new Date() })
      .where(eq(contactBulkJobs.id, jobId))
  })
}
