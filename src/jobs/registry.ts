import { verifyPendingDomainsJob } from '../modules/domains/jobs.js'
import { expireIdempotencyKeysJob } from '../modules/idempotency/jobs.js'
import type { JobDefinition } from './define.js'

/** Every background job, listed once. The worker creates their queues, workers and schedules from here. */
export const jobs: readonly JobDefinition[] = [expireIdempotencyKeysJob, verifyPendingDomainsJob]
