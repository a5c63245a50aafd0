import { countDispatchedEvents } from '../modules/analytics/rollup.js'
import { bulkContactsJob, contactJobFailedJob, endSnoozesJob, importContactsJob } from '../modules/contacts/jobs.js'
import { verifyPendingDomainsJob } from '../modules/domains/jobs.js'
import { subscribeToEvents } from '../modules/events/bus.js'
import { dispatchEventsLoop } from '../modules/events/dispatcher.js'
import { expireFeedbackReceiptsJob } from '../modules/feedback/jobs.js'
import { settlePendingReportsJob } from '../modules/feedback/pending-jobs.js'
import { expireIdempotencyKeysJob } from '../modules/idempotency/jobs.js'
import { reputationSubscriber } from '../modules/reputation/subscriber.js'
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
  settlePendingReportsJob,
]

/** Background loops of worker processes (work that must start sooner than a job queue polls). */
export const loops: readonly LoopDefinition[] = [dispatchEventsLoop]

/**
 * In-app subscribers of committed events; they run in worker processes, inside the dispatch transaction.
 * Subscribed when this module loads (a Set, so loading it twice subscribes once).
 */
const eventSubscribers = [reputationSubscriber, countDispatchedEvents] as const
for (const subscriber of eventSubscribers) subscribeToEvents(subscriber)
