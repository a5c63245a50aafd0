import { bulkContactsJob, contactJobFailedJob, endSnoozesJob, importContactsJob } from '../modules/contacts/jobs.js'
import { verifyPendingDomainsJob } from '../modules/domains/jobs.js'
import { dispatchEventsLoop } from '../modules/events/dispatcher.js'
import { expireFeedbackReceiptsJob } from '../modules/feedback/jobs.js'
import { expireIdempotencyKeysJob } from '../modules/idempotency/jobs.js'
import type { JobDefinition } from './define.js'
import type { LoopDefinition } from './loop.js'

/** Every background job, listed once. The worker creates their queues, workers and schedules from here. */
export const jobs: readonly JobDefinition[] = [
  expireIdempotencyKeysJob,
  verifyPendingDomainsJob,
  contactJobFailedJob,
  importContactsJob,
  bulkContactsJob,
  endSnoozesJob,
  expireFeedbackReceiptsJob,
]

/** Background loops of worker processes (work that must start sooner than a job queue polls). */
export const loops: readonly LoopDefinition[] = [dispatchEventsLoop]
