import { availableParallelism } from 'node:os'
import type pg from 'pg'
import type { Database } from '../../db/client.js'
import { createNotificationListener } from '../../db/notification-listener.js'
import { registerLocalWaiter } from '../../db/wake.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import { createWakeSignal } from '../../jobs/wake-signal.js'
import type { Logger } from '../../logger.js'
import { type ComposePool, startComposePool } from '../../mail/outbound/dkim-pool.js'
import type { ComplaintLoop } from '../../mail/outbound/feedback-headers.js'
import type { Transport } from '../../mail/transports/index.js'
import type { Metrics } from '../metrics/registry.js'
import { runClaimLoop } from './claim-loop.js'
import {
  createDelivery,
  defaultRetryPolicy,
  type Personalise,
  prepareClaim,
  type RetryPolicy,
  type TrackingLinks,
} from './deliver.js'
import { keepLeases } from './leases.js'
import { type PacingSettings, startCampaignPacer } from './pacing.js'
import { createPriorityGate } from './priority-gate.js'
import { createOutcomeRecorder } from './recorder.js'
import { cachedSigningKeys, type ResolveDkimKey } from './signing-keys.js'
import {
  bulkPriority,
  type Claim,
  type OutboxWake,
  outboxChannel,
  requeueAllLeases,
  requeueExpiredLeases,
} from './sql.js'
import { createTrackedLinkStore } from './tracked-links.js'

export type OutboxOptions = {
  transport: Transport
  resolveDkimKey: ResolveDkimKey
  /** Created (`composeThreads` threads) and closed by the outbox when not given. */
  composePool?: ComposePool
  /** Threads that compose and sign messages (default: one per core); 0 composes on the outbox's own thread. */
  composeThreads?: number
  batchSize?: number
  /** Emails claimed but not yet finished; bounds memory and the queue in front of the transport. */
  maxInFlight?: number
  /**
   * Of those, how many may be bulk (campaign) mail: a claim's worth of room is kept for transactional mail, which
   * then overtakes the campaign's emails at the compose threads and the transport (the priority gates).
   */
  maxBulkInFlight?: number
  personalise?: Personalise
  /**
   * Messages handed to the transport at once (default: what the transport asks for, else 64); the rest wait in
   * the outbox, urgent ones first.
   */
  maxTransportConcurrency?: number
  pollIntervalMs?: number
  /**
   * How long a claimed email stays this worker's without a renewal. Renewed every third of it while the email
   * is in flight, so it only runs out when the worker is gone (or stalled for two thirds of it); it is then
   * how long a dead worker's emails wait before another one sends them. See docs/decisions/0013.
   */
  leaseSeconds?: number
  /**
   * This process is the only one delivering from its database (embedded PostgreSQL behind the DATA_DIR lock),
   * so every email SENDING when it starts was left by a process that died: it is queued again at once.
   */
  soleWorker?: boolean
  retry?: Partial<RetryPolicy>
  /** Where open and click tracking links point and the key that signs them; tracked emails go out untracked without it. */
  tracking?: TrackingLinks
  /** Bulk mail carries the RFC 9477 complaint headers while reports can reach the inbound receiver. */
  complaintLoop?: ComplaintLoop
  /** How campaign mail gives way to transactional mail (pacing.ts); `maxBulkInFlight` is its largest window. */
  pacing?: Partial<Omit<PacingSettings, 'maxWindow'>>
}

export type Outbox = {
  /** Stops claiming, lets every claimed email finish and be recorded, then closes the transport. */
  stop(): Promise<void>
  /**
   * Stops at once and records nothing more, as a killed process would: emails in flight stay SENDING
   * until their lease expires and another worker takes them (or a sole worker restarts). For crash tests.
   */
  kill(): Promise<void>
  /** Looks for due emails (of one kind, or all by default) now instead of at the next poll. */
  wake(kind?: OutboxWake): void
}

export type OutboxContext = { db: Database; pool: pg.Pool; log: Logger; metrics: Metrics }

/** The most one requeue statement takes. */
const requeueBatchSize = 1_000

/**
 * The delivery loop: claim due emails in batches, compose and sign them on worker threads, hand them to
 * the transport, and record each outcome. Woken by NOTIFY from `wakeOutbox`, and polls as a fallback.
 * This is the wiring: leases (`leases.ts`), claiming (`claim-loop.ts`) and delivery (`deliver.ts`) are their own.
 */
export function startOutbox(ctx: OutboxContext, options: OutboxOptions): Outbox {
  const batchSize = options.batchSize ?? 100
  const maxInFlight = Math.max(options.maxInFlight ?? 400, batchSize)
  // Never all of it, never none: a room of one claim (maxInFlight = batchSize) still lets both kinds through.
  const maxBulkInFlight = Math.min(
    options.maxBulkInFlight ?? Math.max(maxInFlight - batchSize, Math.ceil(maxInFlight / 2)),
    maxInFlight,
  )
  // Bulk mail is claimed once this much of its window is free, not an email at a time.
  const largestBulkClaim = Math.max(1, Math.min(batchSize, Math.floor(maxBulkInFlight / 4)))
  const bulkClaimSize = () => Math.max(1, Math.min(largestBulkClaim, Math.floor(pacer.window() / 2)))
  const pollIntervalMs = options.pollIntervalMs ?? 1_000
  const leaseSeconds = options.leaseSeconds ?? 30
  const ownsComposePool = !options.composePool
  const composePool = options.composePool ?? startComposePool({ size: options.composeThreads })
  // `email.sent` may answer a workflow's WAIT_FOR_EVENT: the bus hands it out now rather than at its next poll.
  const recorder = createOutcomeRecorder(ctx.db, ctx.log, ctx.metrics.emails, () => wakeEventDispatcher(ctx.pool))
  const leases = keepLeases(ctx, leaseSeconds)

  let state: 'running' | 'stopping' | 'killed' = 'running'
  // Functions, so TypeScript does not narrow `state` across the awaits of the loops.
  const isRunning = () => state === 'running'
  const isKilled = () => state === 'killed'

  const deliver = createDelivery({
    composePool,
    // A few jobs per compose thread keep every thread busy (fewer left them idle, measured); more would only queue
    // there, first come first served, ahead of transactional mail. Campaign mail may fill half of those places, so
    // a transactional email waits behind at most 4 campaign emails on a thread: during a full-speed campaign its
    // accepted-to-SMTP-reply p99 was 116–135 ms with 4, 114–183 ms with 8, at the same campaign rate (2026-11-27).
    composeGate: createPriorityGate(8 * availableParallelism(), 4 * availableParallelism()),
    transportGate: createPriorityGate(options.maxTransportConcurrency ?? options.transport.concurrency ?? 64),
    transport: options.transport,
    recorder,
    signingKey: cachedSigningKeys(options.resolveDkimKey),
    leases,
    tracking: options.tracking,
    complaintLoop: options.complaintLoop,
    trackedLinks: createTrackedLinkStore(ctx.db),
    retryPolicy: { ...defaultRetryPolicy, ...options.retry },
    isKilled,
    transactionalWaited: (waitedMs) => pacer.transactionalWaited(waitedMs),
  })

  // Transactional and campaign mail are claimed by two loops, each woken by its own signal: a transactional email
  // is claimed as soon as it is committed, never after a campaign batch's claim.
  const urgentSignal = createWakeSignal()
  const bulkSignal = createWakeSignal()
  const wake = (kind: OutboxWake = 'all') => {
    if (kind !== 'bulk') urgentSignal.notify()
    if (kind !== 'urgent') bulkSignal.notify()
  }
  // A payload this version does not know (an older process sends none) wakes both loops.
  const wakeFor = (payload: string | undefined) => wake(payload === 'urgent' || payload === 'bulk' ? payload : 'all')
  const listener = createNotificationListener(ctx.pool, outboxChannel, wakeFor, ctx.log)
  const unregisterLocalWake = registerLocalWaiter(ctx.pool, outboxChannel, {
    wake: wakeFor,
    soleWorker: options.soleWorker ?? false,
  })

  const inFlight = new Set<Promise<void>>()
  let bulkInFlight = 0
  let waitingForRoom = false
  let waitingForBulkRoom = false
  const pacer = startCampaignPacer(ctx.pool, {
    ...options.pacing,
    maxWindow: maxBulkInFlight,
    onGrow: () => waitingForBulkRoom && bulkSignal.notify(),
  })

  /**
   * Counts the claimed emails in flight at once and prepares them (attachments; whether campaign mail still goes out
   * and what it renders) in the background: the loop claims again meanwhile. A claim whose preparation fails is
   * retried like any temporary failure.
   */
  const dispatch = (claim: Claim) => {
    const prepared = prepareClaim(ctx.db, options.personalise, claim)
    prepared.catch((err: unknown) =>
      ctx.log.warn({ err, emails: claim.emails.length }, 'preparing claimed emails failed; they will be retried'),
    )
    for (const email of claim.emails) {
      leases.hold(email)
      const bulk = email.priority >= bulkPriority
      if (bulk) bulkInFlight++
      const delivery = deliver(email, prepared).finally(() => {
        inFlight.delete(delivery)
        if (bulk) bulkInFlight--
        leases.release(email)
        if (waitingForRoom && inFlight.size <= maxInFlight - batchSize) urgentSignal.notify()
        if (waitingForBulkRoom && bulkInFlight <= pacer.window() - bulkClaimSize()) bulkSignal.notify()
      })
      inFlight.add(delivery)
    }
  }

  const logRequeued = (requeued: number) => {
    if (requeued > 0) ctx.log.info({ requeued }, 'queued again the emails a stopped worker was sending')
  }
  /** In statements of `requeueBatchSize`, so a huge backlog of dead leases is freed in short transactions. */
  const requeueExpired = async () => {
    let requeued = 0
    for (;;) {
      const rows = await requeueExpiredLeases(ctx.db, requeueBatchSize)
      requeued += rows
      if (rows < requeueBatchSize) return requeued
    }
  }

  // Before either loop claims: requeuing every SENDING email after a claim would requeue this worker's own.
  let predecessorReaped: Promise<void> | undefined = options.soleWorker ? undefined : Promise.resolve()
  const reapPredecessor = () => {
    predecessorReaped ??= requeueAllLeases(ctx.db).then(logRequeued, (err: unknown) => {
      predecessorReaped = undefined
      throw err
    })
    return predecessorReaped
  }

  const settings = { db: ctx.db, log: ctx.log, batchSize, pollIntervalMs, leaseSeconds, isRunning, isKilled, dispatch }
  let leasesCheckedAt = 0
  const loops = Promise.all([
    runClaimLoop(settings, {
      kind: 'urgent',
      signal: urgentSignal,
      room: () => maxInFlight - inFlight.size,
      atLeast: () => batchSize,
      onWaitingForRoom: (waiting) => {
        waitingForRoom = waiting
      },
      beforeClaim: async () => {
        await listener.ensure()
        await reapPredecessor()
        if (Date.now() - leasesCheckedAt >= pollIntervalMs) {
          leasesCheckedAt = Date.now()
          logRequeued(await requeueExpired())
        }
      },
    }),
    // Bulk mail is claimed a few dozen emails at a time, within the window its pacer leaves it.
    runClaimLoop(settings, {
      kind: 'bulk',
      signal: bulkSignal,
      room: () => Math.min(pacer.window() - bulkInFlight, maxInFlight - inFlight.size),
      atLeast: bulkClaimSize,
      onWaitingForRoom: (waiting) => {
        waitingForBulkRoom = waiting
        if (waiting) pacer.windowFull()
      },
      beforeClaim: reapPredecessor,
    }),
  ])

  return {
    wake,
    async stop() {
      if (state !== 'running') return
      state = 'stopping'
      unregisterLocalWake()
      wake()
      await loops
      await Promise.all(inFlight)
      pacer.stop()
      leases.stop()
      await recorder.drain()
      await listener.close()
      await options.transport.close()
      if (ownsComposePool) await composePool.close()
    },
    async kill() {
      if (state === 'killed') return
      state = 'killed'
      unregisterLocalWake()
      pacer.stop()
      leases.stop()
      recorder.discard()
      wake()
      await options.transport.close({ force: true })
      if (ownsComposePool) await composePool.close()
      await loops
      await listener.close()
    },
  }
}
