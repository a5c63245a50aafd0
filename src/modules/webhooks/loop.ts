import type { AppContext } from '../../context.js'
import { defineLoop } from '../../jobs/loop.js'
import { deliverMessage, webhookTimeoutMs } from './deliver.js'
import { anyMessageDue, type ClaimedMessage, claimDueMessages, releaseLeases } from './sql.js'
import { wakeWebhookDelivery, webhookDeliveryLoopName } from './wake.js'

/**
 * Attempts of one endpoint not yet recorded, per process: in flight, or answered and waiting for their batch to be
 * recorded. It bounds what a slow or dead endpoint holds of the process, and what a crash can send twice.
 */
const perEndpoint = 16
/** Attempts in flight per process across every endpoint. */
const maxInFlight = 256
/**
 * Messages of one endpoint a process may hold, when the lease leaves time to wait: claimed in one statement and
 * started `perEndpoint` at a time as earlier attempts are recorded, so a busy endpoint needs a claim every few
 * dozen messages instead of every `perEndpoint`. Each process counts its own: two workers may each send 16 to one
 * endpoint at once.
 */
const leasedPerEndpoint = 64
/** Claimed messages waiting for a slot, per process. */
const maxHeld = 1_024
const claimBatch = 500
/** Kept in hand at the end of a lease for recording the attempt: a message starts no later than this before. */
const recordMarginMs = 1_000
/** The least wait a lease must allow for messages to be claimed ahead of their slot. */
const minWaitMs = 5_000

type Held = { message: ClaimedMessage; startBy: number }

/** This process's share of the deliveries, per context (tests run several in one process). */
type Deliveries = {
  /** Claimed messages not started yet, per endpoint, in claim order. */
  held: Map<string, Held[]>
  heldCount: number
  /** Attempts not yet recorded, per endpoint. */
  unrecorded: Map<string, number>
  inFlight: Set<Promise<void>>
  closing: boolean
}

const deliveriesByContext = new WeakMap<AppContext, Deliveries>()

function deliveriesOf(ctx: AppContext): Deliveries {
  let deliveries = deliveriesByContext.get(ctx)
  if (!deliveries) {
    const state: Deliveries = {
      held: new Map(),
      heldCount: 0,
      unrecorded: new Map(),
      inFlight: new Set(),
      closing: false,
    }
    deliveries = state
    deliveriesByContext.set(ctx, state)
    // After the loops have stopped (their hook comes first): what was claimed and not started goes back at once,
    // and the attempts running finish and are recorded.
    ctx.onClose(async () => {
      state.closing = true
      const unstarted = [...state.held.values()].flat().map((held) => held.message)
      state.held.clear()
      state.heldCount = 0
      await releaseLeases(ctx.db, unstarted).catch((err: unknown) =>
        ctx.log.warn({ err }, 'webhook leases not released at stop; they are due again when they end'),
      )
      await Promise.allSettled([...state.inFlight])
    })
  }
  return deliveries
}

/** What this process holds of each endpoint: attempts not yet recorded, and messages waiting for a slot. */
function heldByEndpoint(deliveries: Deliveries): Map<string, number> {
  const held = new Map(deliveries.unrecorded)
  for (const [endpointId, queue] of deliveries.held) held.set(endpointId, (held.get(endpointId) ?? 0) + queue.length)
  return held
}

/** Starts what the slots allow; a message whose lease no longer covers an attempt goes back instead. */
function startHeld(ctx: AppContext, deliveries: Deliveries): void {
  if (deliveries.closing) return
  const expired: ClaimedMessage[] = []
  for (const [endpointId, queue] of deliveries.held) {
    while (queue.length > 0 && deliveries.inFlight.size < maxInFlight) {
      if ((deliveries.unrecorded.get(endpointId) ?? 0) >= perEndpoint) break
      const next = queue.shift()
      if (!next) break
      deliveries.heldCount--
      if (Date.now() > next.startBy) expired.push(next.message)
      else start(ctx, deliveries, next.message)
    }
    if (queue.length === 0) deliveries.held.delete(endpointId)
  }
  if (expired.length > 0) {
    releaseLeases(ctx.db, expired).catch((err: unknown) =>
      ctx.log.warn({ err }, 'webhook leases not released; they are due again when they end'),
    )
  }
}

function start(ctx: AppContext, deliveries: Deliveries, message: ClaimedMessage): void {
  const endpointId = message.endpoint_id
  deliveries.unrecorded.set(endpointId, (deliveries.unrecorded.get(endpointId) ?? 0) + 1)
  const attempt = deliverMessage(ctx, message)
    .catch((err: unknown) => ctx.log.error({ err, messageId: message.id }, 'webhook attempt not recorded'))
    .finally(() => {
      deliveries.inFlight.delete(attempt)
      const left = (deliveries.unrecorded.get(endpointId) ?? 1) - 1
      if (left === 0) deliveries.unrecorded.delete(endpointId)
      else deliveries.unrecorded.set(endpointId, left)
      startHeld(ctx, deliveries)
      // A slot freed with nothing of its endpoint held here: claim more (and retries may come due soon).
      if (!deliveries.held.has(endpointId)) wakeWebhookDelivery(ctx.pool)
    })
  deliveries.inFlight.add(attempt)
}

/**
 * Claims due messages and starts their attempts without waiting for them: the loop goes on claiming for other
 * endpoints while a slow one answers. A message waits here for its endpoint's slot only as long as its lease
 * leaves time for the attempt, so no other process can take it while it is being sent.
 */
async function claimAndStart(ctx: AppContext): Promise<boolean> {
  const deliveries = deliveriesOf(ctx)
  startHeld(ctx, deliveries)
  const leaseMs = ctx.config.crashRecovery.webhookLeaseSeconds * 1_000
  const waitMs = leaseMs - webhookTimeoutMs - recordMarginMs
  // A short lease (WEBHOOK_LEASE_SECONDS near its least, 11) leaves no time to wait: claim only what starts now.
  const ahead = waitMs >= minWaitMs
  const room = ahead ? maxHeld - deliveries.heldCount : maxInFlight - deliveries.inFlight.size
  const limit = Math.min(claimBatch, room)
  if (limit <= 0 || deliveries.closing) return false
  const claimedAt = Date.now()
  const claimed = await claimDueMessages(ctx.db, {
    perEndpoint: ahead ? leasedPerEndpoint : perEndpoint,
    limit,
    leaseSeconds: ctx.config.crashRecovery.webhookLeaseSeconds,
    held: heldByEndpoint(deliveries),
  })
  const startBy = ahead ? claimedAt + waitMs : Number.POSITIVE_INFINITY
  for (const message of claimed) {
    const queue = deliveries.held.get(message.endpoint_id) ?? []
    queue.push({ message, startBy })
    deliveries.held.set(message.endpoint_id, queue)
    deliveries.heldCount++
  }
  startHeld(ctx, deliveries)
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
