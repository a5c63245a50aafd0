import type { AppContext } from '../../context.js'
import { defineLoop } from '../../jobs/loop.js'
import { deliverMessage } from './deliver.js'
import { anyMessageDue, claimDueMessages } from './sql.js'
import { wakeWebhookDelivery, webhookDeliveryLoopName } from './wake.js'

/** In flight per endpoint (per worker): a slow or dead endpoint holds at most this many of the process's slots. */
const perEndpoint = 16
/** In flight per process across every endpoint. */
const maxInFlight = 256

/** The attempts this process has in flight, per context, so closing waits for them to be recorded. */
const inFlightByContext = new WeakMap<AppContext, Set<Promise<void>>>()

function inFlightOf(ctx: AppContext): Set<Promise<void>> {
  let inFlight = inFlightByContext.get(ctx)
  if (!inFlight) {
    const attempts = new Set<Promise<void>>()
    inFlight = attempts
    inFlightByContext.set(ctx, attempts)
    // After the loops have stopped (their hook comes first): the attempts running finish and are recorded.
    ctx.onClose(async () => {
      await Promise.allSettled([...attempts])
    })
  }
  return inFlight
}

/**
 * Claims due messages and starts their attempts without waiting for them: the loop goes on claiming for other
 * endpoints while a slow one answers. Each attempt, once recorded, wakes the loop, since it freed a slot of its
 * endpoint (and may have made a retry due soon).
 */
async function claimAndStart(ctx: AppContext): Promise<boolean> {
  const inFlight = inFlightOf(ctx)
  const limit = Math.min(100, maxInFlight - inFlight.size)
  if (limit <= 0) return false
  const claimed = await claimDueMessages(ctx.db, {
    perEndpoint,
    limit,
    leaseSeconds: ctx.config.crashRecovery.webhookLeaseSeconds,
  })
  for (const message of claimed) {
    const attempt = deliverMessage(ctx, message)
      .catch((err: unknown) => ctx.log.error({ err, messageId: message.id }, 'webhook attempt not recorded'))
      .finally(() => {
        inFlight.delete(attempt)
        wakeWebhookDelivery(ctx.pool)
      })
    inFlight.add(attempt)
  }
  return claimed.length === limit
}

/** Runs in worker processes; several of them share the messages (SKIP LOCKED and leases). */
export const webhookDeliveryLoop = defineLoop({
  name: webhookDeliveryLoopName,
  // Retries come due without a wake: the poll is how a 5 s retry is noticed.
  idleMs: 500,
  wakeGapMs: 10,
  errorBackoffMs: 2_000,
  hasWork: (ctx) => anyMessageDue(ctx.db),
  run: claimAndStart,
})
