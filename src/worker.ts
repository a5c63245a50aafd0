import type { AppContext } from './context.js'
import { subscribeToEvents } from './events/bus.js'
import { dispatchEventsLoop } from './events/dispatcher.js'
import type { JobDefinition } from './jobs/define.js'
import type { LoopDefinition } from './jobs/loop.js'
import { createQueues, type LoopsOptions, startWorkers } from './jobs/worker.js'
import type { InboundServer } from './mail/inbound/server.js'
import { countDispatchedEvents } from './modules/analytics/rollup.js'
import { expireAccountRowsJob } from './modules/auth/jobs.js'
import { campaignsLoop } from './modules/campaigns/loop.js'
import { personaliseCampaignEmails } from './modules/campaigns/personalise.js'
import { bulkContactsJob, contactJobFailedJob, endSnoozesJob, importContactsJob } from './modules/contacts/jobs.js'
import type { Outbox } from './modules/delivery/outbox.js'
import { type DeliveryWorkerOptions, startDeliveryWorker } from './modules/delivery/worker.js'
import { verifyPendingDomainsJob } from './modules/domains/jobs.js'
import { expireFeedbackReceiptsJob } from './modules/feedback/jobs.js'
import { settlePendingReportsJob } from './modules/feedback/pending-jobs.js'
import { expireIdempotencyKeysJob } from './modules/idempotency/jobs.js'
import { startInboundReceiver } from './modules/inbound/receiver.js'
import { reputationSubscriber } from './modules/reputation/subscriber.js'
import { sweepSegmentsJob } from './modules/segments/jobs.js'
import { segmentSubscriber } from './modules/segments/subscriber.js'
import { webhookSubscriber } from './modules/webhooks/fan-out.js'
import { expireWebhookMessagesJob } from './modules/webhooks/jobs.js'
import { webhookDeliveryLoop } from './modules/webhooks/loop.js'
import { workflowsLoop } from './modules/workflows/engine/loop.js'
import { workflowSubscriber } from './modules/workflows/executions/triggers.js'
import { compactExecutionCountsJob } from './modules/workflows/jobs.js'

/*
 * Everything a worker process runs, listed once and started by `startWorker`, as app.ts lists every route.
 */

/** Every background job: its queue exists in every process (the API enqueues), its handler runs in workers. */
const jobs: readonly JobDefinition[] = [
  expireIdempotencyKeysJob,
  verifyPendingDomainsJob,
  contactJobFailedJob,
  importContactsJob,
  bulkContactsJob,
  endSnoozesJob,
  expireFeedbackReceiptsJob,
  expireAccountRowsJob,
  settlePendingReportsJob,
  sweepSegmentsJob,
  compactExecutionCountsJob,
  expireWebhookMessagesJob,
]

/** Background loops (work that must start sooner than a job queue polls). */
const loops: readonly LoopDefinition[] = [dispatchEventsLoop, campaignsLoop, workflowsLoop, webhookDeliveryLoop]

/** In-app subscribers of committed events; they run inside the event bus's dispatch transaction. */
const eventSubscribers = [
  reputationSubscriber,
  countDispatchedEvents,
  segmentSubscriber,
  workflowSubscriber,
  webhookSubscriber,
] as const

/** Creates or updates every job queue; every process does it, so an API process can enqueue. */
export function createJobQueues(ctx: AppContext): Promise<void> {
  return createQueues(ctx, jobs)
}

export type RunningWorker = {
  outbox: Outbox
  /** The built-in SMTP receiver, when INBOUND_SMTP_PORT is set; closed by `ctx.close()`, before the database. */
  inbound: InboundServer | undefined
  /** Lets the emails in flight finish and be recorded; jobs and loops stop with `ctx.close()`. */
  stop(): Promise<void>
}

export type WorkerOptions = { delivery?: DeliveryWorkerOptions; loops?: LoopsOptions }

/** Starts the event subscribers, the job workers and schedules, the loops, the outbox and the inbound receiver. */
export async function startWorker(ctx: AppContext, options: WorkerOptions = {}): Promise<RunningWorker> {
  // A Set: subscribing again (a second context in one process) changes nothing.
  for (const subscriber of eventSubscribers) subscribeToEvents(subscriber)
  await startWorkers(ctx, jobs, loops, options.loops)
  // Campaign mail is made for each contact as it is sent: the campaigns module says how, the outbox never asks it.
  const outbox = startDeliveryWorker(ctx, {
    personalise: (emails) => personaliseCampaignEmails(ctx, emails),
    ...options.delivery,
  })
  try {
    const inbound = await startInboundReceiver(ctx)
    return { outbox, inbound, stop: () => outbox.stop() }
  } catch (err) {
    await outbox.stop()
    throw err
  }
}
