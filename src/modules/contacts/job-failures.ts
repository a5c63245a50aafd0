import { and, eq, inArray } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { contactBulkJobs, contactImports } from '../../db/schema/index.js'

const failedMessage = 'The job failed after several attempts; nothing more will be done. Try again.'

/** Marks an import or bulk job failed unless it finished; its file is dropped. */
export async function markContactJobFailed(
  db: Executor,
  job: { importId?: string | undefined; bulkJobId?: string | undefined },
): Promise<void> {
  const unfinished = ['queued', 'running'] as const
  if (job.importId) {
    await db
      .update(contactImports)
      .set({ state: 'failed', error: failedMessage, file: null, finishedAt: new Date() })
      .where(and(eq(contactImports.id, job.importId), inArray(contactImports.state, [...unfinished])))
  }
  if (job.bulkJobId) {
    await db
      .update(contactBulkJobs)
      .set({ state: 'failed', error: failedMessage, finishedAt: new Date() })
      .where(and(eq(contactBulkJobs.id, job.bulkJobId), inArray(contactBulkJobs.state, [...unfinished])))
  }
}
