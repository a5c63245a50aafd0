import type { AppContext } from '../../context.js'
import { type FailureCounter, memoryFailureCounter, redisFailureCounter } from '../../http/failure-counter.js'
import { connectRateLimitStore } from '../../http/rate-limit.js'
import type { SubmissionHandler } from '../../mail/submission/handler.js'
import { batchedKeyLookup } from '../projects/service.js'
import { acceptSubmission } from './accept.js'
import { createFailedLogins } from './failed-logins.js'
import { authenticateLogin } from './login.js'
import { checkRecipient } from './recipient.js'
import { checkSender } from './sender.js'

export type SubmissionHandlerOptions = {
  /** Where failed logins are counted; by default the API's store (Redis under REDIS_URL, shared), else memory. */
  failureCounter?: FailureCounter
}

/**
 * The failed-login counter of the API's limit: with REDIS_URL, the same keys in the same store, so wrong keys sent
 * to the API and wrong passwords sent to the relay add up per address across every process. Connected on first
 * use; a process that never sees a wrong password never connects.
 */
function sharedFailureCounter(ctx: AppContext): () => Promise<FailureCounter> {
  const { redisUrl } = ctx.config
  if (!redisUrl) {
    const memory = memoryFailureCounter()
    return async () => memory
  }
  let counter: Promise<FailureCounter> | undefined
  return () => {
    counter ??= connectRateLimitStore(redisUrl, ctx.log).then((redis) => {
      ctx.onClose(async () => void redis.disconnect())
      return redisFailureCounter(redis, 'mailroom-failed-auth:')
    })
    return counter
  }
}

/**
 * The application's side of the SMTP relay (issue #31): what the submission server asks at AUTH, MAIL FROM,
 * RCPT TO and the end of DATA, with the guarantees of /v1/send. See each step's file.
 */
export function createSubmissionHandler(ctx: AppContext, options: SubmissionHandlerOptions = {}): SubmissionHandler {
  const { failureCounter } = options
  const failedLogins = createFailedLogins({
    maxPerMinute: ctx.config.failedAuthLimitPerMinute,
    counter: failureCounter ? async () => failureCounter : sharedFailureCounter(ctx),
    log: ctx.log,
  })
  const findProjectByKey = batchedKeyLookup(ctx.db, ctx.config.secret)
  return {
    authenticate: (login) => authenticateLogin((key) => findProjectByKey('secret', key), failedLogins, login),
    checkSender: (projectId, address) => checkSender(ctx, projectId, address),
    checkRecipient: (projectId, address) => checkRecipient(ctx, projectId, address),
    accept: (submission) => acceptSubmission(ctx, submission),
  }
}
