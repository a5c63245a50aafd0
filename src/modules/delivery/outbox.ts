import { availableParallelism } from 'node:os'
import type pg from 'pg'
import type { Database } from '../../db/client.js'
import { isConnectionLost } from '../../db/connection-loss.js'
import { createNotificationListener } from '../../db/notification-listener.js'
import { registerLocalWaiter } from '../../db/wake.js'
import { createWakeSignal, type WakeSignal } from '../../jobs/wake-signal.js'
import type { Logger } from '../../logger.js'
import { domainOf } from '../../mail/address.js'
import type { ComposeJob } from '../../mail/outbound/compose.js'
import type { ContactRender } from '../../mail/outbound/contact-render.js'
import { ComposeError, type ComposePool, startComposePool } from '../../mail/outbound/dkim-pool.js'
import { type Transport, TransportError } from '../../mail/transports/index.js'
import { wakeEventDispatcher } from '../events/wake.js'
import type { Metrics } from '../metrics/registry.js'
import { createPriorityGate } from './priority-gate.js'
import { createOutcomeRecorder } from './recorder.js'
import {
  bulkPriority,
  type Claim,
  type ClaimedEmail,
  type ClaimLimits,
  claimEmails,
  type EmailAttachmentRow,
  findAttachments,
  type OutboxWake,
  outboxChannel,
  renewLeases,
  requeueAllLeases,
  requeueExpiredLeases,
} from './sql.js'

export type DkimSigningKey = { selector: string; privateKeyPem: string }

/** What to render for an email's contact when it is sent (on a compose thread), or why it must not be sent. */
export type Personalisation = { render: ContactRender } | { error: string }

/**
 * Says, for the claimed emails stored without their content (campaign mail, made for each contact at delivery
 * from the contact as it is then), what their compose threads render or why they must not be sent; emails missing
 * from the answer go out as stored.
 */
export type Personalise = (emails: readonly ClaimedEmail[]) => Promise<Map<string, Personalisation>>

/** Finds the key to sign a sender domain's mail with; undefined sends the email unsigned. */
export type ResolveDkimKey = (projectId: string, domain: string) => Promise<DkimSigningKey | undefined>

export type RetryPolicy = {
  baseDelaySeconds: number
  maxDelaySeconds: number
  /** An email still failing temporarily this long after it was accepted is given up on. */
  maxAgeSeconds: number
  maxAttempts: number
}

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
}

export type TrackingLinks = { publicUrl: string; secret: string }

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

/** What a claim's emails need besides their row, fetched once per claim. */
type PreparedClaim = {
  attachments: Map<string, EmailAttachmentRow[]>
  personalised: Map<string, Personalisation> | undefined
}

export type OutboxContext = { db: Database; pool: pg.Pool; log: Logger; metrics: Metrics }

const defaultRetryPolicy: RetryPolicy = {
  baseDelaySeconds: 30,
  maxDelaySeconds: 3_600,
  maxAgeSeconds: 24 * 3_600,
  maxAttempts: 50,
}
const dkimKeyTtlMs = 60_000
/** The most one requeue statement takes. */
const requeueBatchSize = 1_000
/** A renewal that failed (a busy pool, a lost connection) is tried again this soon, well inside the lease. */
const renewalRetryMs = 1_000
const maxErrorLength = 1_000

/** 30 s · 2^(attempt-1), capped at an hour, ±20 % so a burst that failed together does not retry together. */
export function retryDelaySeconds(attempts: number, policy: RetryPolicy, random = Math.random): number {
  const delay = Math.min(policy.baseDelaySeconds * 2 ** Math.max(0, attempts - 1), policy.maxDelaySeconds)
  return delay * (0.8 + 0.4 * random())
}

/** An email whose preparation lost its database connection (a restart) is tried again this soon, not a backoff later. */
const databaseRetryDelaySeconds = 1

type Failure = { permanent: boolean; bounce: boolean; error: string; retryDelaySeconds?: number }

function describeFailure(err: unknown): Failure {
  if (err instanceof TransportError) {
    return {
      permanent: err.permanent,
      bounce: err.permanent && err.bounce,
      error: (err.code ? `${err.code} ${err.message}` : err.message).slice(0, maxErrorLength),
    }
  }
  // A message that cannot be built now never will be; anything else (database, a worker thread) may pass later.
  const message = err instanceof Error ? err.message : String(err)
  return {
    permanent: err instanceof ComposeError,
    bounce: false,
    error: message.slice(0, maxErrorLength),
    ...(isConnectionLost(err) && { retryDelaySeconds: databaseRetryDelaySeconds }),
  }
}

function toComposeJob(
  email: ClaimedEmail,
  attachments: EmailAttachmentRow[],
  key: DkimSigningKey | undefined,
  tracking: TrackingLinks | undefined,
  render: ContactRender | undefined,
): ComposeJob {
  const domain = domainOf(email.fromEmail)
  return {
    message: {
      messageId: email.messageId,
      from: { email: email.fromEmail, name: email.fromName },
      to: { email: email.toEmail, name: email.toName },
      replyTo: email.replyTo,
      subject: email.subject,
      html: email.html,
      headers: email.headers,
      attachments: attachments.map((attachment) => ({
        filename: attachment.filename,
        contentType: attachment.contentType,
        content: attachment.content,
        contentId: attachment.contentId,
        disposition: attachment.disposition,
      })),
    },
    ...(render ? { render } : {}),
    ...(key ? { dkim: { domainName: domain, selector: key.selector, privateKeyPem: key.privateKeyPem } } : {}),
    ...(tracking && email.tracked ? { tracking: { ...tracking, emailId: email.id } } : {}),
  }
}

/**
 * The delivery loop: claim due emails in batches, compose and sign them on worker threads, hand them to
 * the transport, and record each outcome. Woken by NOTIFY from `wakeOutbox`, and polls as a fallback.
 */
export function startOutbox(ctx: OutboxContext, options: OutboxOptions): Outbox {
  const batchSize = options.batchSize ?? 100
  const maxInFlight = Math.max(options.maxInFlight ?? 400, batchSize)
  // Never all of it, never none: a room of one claim (maxInFlight = batchSize) still lets both kinds through.
  const maxBulkInFlight = Math.min(
    options.maxBulkInFlight ?? Math.max(maxInFlight - batchSize, Math.ceil(maxInFlight / 2)),
    maxInFlight,
  )
  // Bulk mail is claimed once this much bulk room is free, not an email at a time.
  const bulkClaimSize = Math.max(1, Math.min(batchSize, Math.floor(maxBulkInFlight / 4)))
  const pollIntervalMs = options.pollIntervalMs ?? 1_000
  const leaseSeconds = options.leaseSeconds ?? 30
  const renewalIntervalMs = (leaseSeconds * 1_000) / 3
  const retryPolicy = { ...defaultRetryPolicy, ...options.retry }
  const ownsComposePool = !options.composePool
  const composePool = options.composePool ?? startComposePool({ size: options.composeThreads })
  // A few jobs per compose thread keep every thread busy (fewer left them idle, measured); more would only queue
  // there, first come first served, ahead of transactional mail. Campaign mail may fill half of those places, so
  // a transactional email waits behind at most 4 campaign emails on a thread: during a full-speed campaign its
  // accepted-to-SMTP-reply p99 was 116–135 ms with 4, 114–183 ms with 8, at the same campaign rate (2026-11-27).
  const composeGate = createPriorityGate(8 * availableParallelism(), 4 * availableParallelism())
  const transportGate = createPriorityGate(options.maxTransportConcurrency ?? options.transport.concurrency ?? 64)
  // `email.sent` may answer a workflow's WAIT_FOR_EVENT: the bus hands it out now rather than at its next poll.
  const recorder = createOutcomeRecorder(ctx.db, ctx.log, ctx.metrics.emails, () => wakeEventDispatcher(ctx.pool))
  const dkimKeys = new Map<string, { expiresAt: number; key: Promise<DkimSigningKey | undefined> }>()
  const inFlight = new Set<Promise<void>>()
  let bulkInFlight = 0
  /**
   * Claimed emails not finished yet, with the attempt number of this worker's claim. After a stall the same
   * email may be claimed again while the old claim is still in flight: the attempt number tells them apart.
   */
  const leases = new Map<string, number>()
  /** Claims (email id, attempt) whose lease ran out while this worker stalled: not handed to the transport any more. */
  const lostLeases = new Map<string, number>()

  let state: 'running' | 'stopping' | 'killed' = 'running'
  // Transactional and campaign mail are claimed by two loops, each woken by its own signal: a transactional email
  // is claimed as soon as it is committed, never after a campaign batch's claim.
  const urgentSignal = createWakeSignal()
  const bulkSignal = createWakeSignal()
  let waitingForRoom = false
  let waitingForBulkRoom = false

  // A function, so TypeScript does not narrow `state` across the awaits of the loop.
  const isKilled = () => state === 'killed'

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

  const signingKey = (projectId: string, domain: string) => {
    const cacheKey = `${projectId}\n${domain}`
    const cached = dkimKeys.get(cacheKey)
    if (cached && cached.expiresAt > Date.now()) return cached.key
    const key = options.resolveDkimKey(projectId, domain)
    dkimKeys.set(cacheKey, { expiresAt: Date.now() + dkimKeyTtlMs, key })
    key.catch(() => dkimKeys.delete(cacheKey))
    return key
  }

  const deliver = async (email: ClaimedEmail, prepared: Promise<PreparedClaim>) => {
    try {
      const { attachments, personalised } = await prepared
      if (isKilled()) return
      const personal = personalised?.get(email.id)
      if (personal && 'error' in personal) throw new ComposeError(personal.error)
      const key = await signingKey(email.projectId, domainOf(email.fromEmail))
      const urgent = email.priority < bulkPriority
      const job = toComposeJob(email, attachments.get(email.id) ?? [], key, options.tracking, personal?.render)
      const { raw, subject } = await composeGate.run(urgent, () => composePool.compose(job))
      // Another claim may be sending it now; sending it here too would only deliver it twice.
      if (lostLeases.get(email.id) === email.attempts) return
      const { providerMessageId } = await transportGate.run(urgent, () =>
        options.transport.send({
          projectId: email.projectId,
          emailId: email.id,
          messageId: email.messageId,
          envelope: { from: email.fromEmail, to: [email.toEmail] },
          subject,
          raw,
        }),
      )
      if (state !== 'killed') {
        const sentAt = new Date().toISOString()
        recorder.sent(
          {
            id: email.id,
            attempts: email.attempts,
            providerMessageId,
            sentAt,
            ...(personal ? { subject } : {}),
          },
          email.createdAt,
        )
      }
    } catch (err) {
      if (state === 'killed') return
      const { permanent, bounce, error, retryDelaySeconds: soon } = describeFailure(err)
      const claim = { id: email.id, attempts: email.attempts }
      if (bounce) return recorder.bounced({ ...claim, error })
      const expired = email.createdAt.getTime() + retryPolicy.maxAgeSeconds * 1_000 <= Date.now()
      if (permanent || expired || email.attempts >= retryPolicy.maxAttempts) {
        recorder.failed({
          ...claim,
          error: permanent ? error : `gave up after ${email.attempts} attempts: ${error}`,
        })
      } else {
        recorder.retry({ ...claim, error, delaySeconds: soon ?? retryDelaySeconds(email.attempts, retryPolicy) })
      }
    }
  }

  const prepare = async ({ emails: claimed, withAttachments }: Claim): Promise<PreparedClaim> => {
    const attachments = new Map<string, EmailAttachmentRow[]>()
    const [attachmentRows, personalised] = await Promise.all([
      findAttachments(ctx.db, withAttachments),
      options.personalise?.(claimed),
    ])
    for (const row of attachmentRows) {
      attachments.set(row.emailId, [...(attachments.get(row.emailId) ?? []), row])
    }
    return { attachments, personalised }
  }

  /**
   * Counts the claimed emails in flight at once and prepares them (attachments; whether campaign mail still goes out
   * and what it renders) in the background: the loop claims again meanwhile. A claim whose preparation fails is
   * retried like any temporary failure.
   */
  const dispatch = (claim: Claim) => {
    const prepared = prepare(claim)
    prepared.catch((err: unknown) =>
      ctx.log.warn({ err, emails: claim.emails.length }, 'preparing claimed emails failed; they will be retried'),
    )
    for (const email of claim.emails) {
      leases.set(email.id, email.attempts)
      const bulk = email.priority >= bulkPriority
      if (bulk) bulkInFlight++
      const delivery = deliver(email, prepared).finally(() => {
        inFlight.delete(delivery)
        if (bulk) bulkInFlight--
        if (leases.get(email.id) === email.attempts) leases.delete(email.id)
        if (lostLeases.get(email.id) === email.attempts) lostLeases.delete(email.id)
        if (waitingForRoom && inFlight.size <= maxInFlight - batchSize) urgentSignal.notify()
        if (waitingForBulkRoom && bulkInFlight <= maxBulkInFlight - bulkClaimSize) bulkSignal.notify()
      })
      inFlight.add(delivery)
    }
  }

  // Renewal runs on a timer of its own, not in the claim loop: the loop may wait on a full transport or a slow
  // claim, and a renewal that came late would hand a live worker's emails to another one, which sends them again.
  // One statement per interval for every email in flight, whatever the send rate.
  let renewalTimer: NodeJS.Timeout | undefined
  let renewing = true
  const renew = async () => {
    let nextMs = renewalIntervalMs
    try {
      const held = [...leases].map(([id, attempts]) => ({ id, attempts }))
      const renewed = new Set(await renewLeases(ctx.db, held, leaseSeconds))
      // An email finished meanwhile is not renewed either, but it is no longer in `leases`.
      const lost = held.filter((lease) => !renewed.has(lease.id) && leases.get(lease.id) === lease.attempts)
      for (const lease of lost) lostLeases.set(lease.id, lease.attempts)
      if (lost.length > 0) {
        ctx.log.warn(
          { emails: lost.length },
          'leases of emails in flight ran out (this worker stalled); not sending them',
        )
      }
    } catch (err) {
      if (!renewing) return
      ctx.log.warn({ err }, 'renewing the leases of emails in flight failed; retrying')
      nextMs = Math.min(renewalRetryMs, renewalIntervalMs)
    }
    if (renewing) renewalTimer = setTimeout(renew, nextMs).unref()
  }
  renewalTimer = setTimeout(renew, renewalIntervalMs)
  renewalTimer.unref()
  const stopRenewing = () => {
    renewing = false
    clearTimeout(renewalTimer)
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

  /**
   * Claims emails of one kind while the outbox runs. Waits on `signal` while `room` leaves less than `atLeast`, and
   * after a claim that took fewer than it asked for (no more due mail of its kind for now).
   */
  const claimLoop = async (loop: {
    kind: keyof ClaimLimits
    signal: WakeSignal
    room: () => number
    atLeast: number
    onWaitingForRoom: (waiting: boolean) => void
    beforeClaim: () => Promise<void>
  }) => {
    while (state === 'running') {
      try {
        await loop.beforeClaim()
        const free = Math.min(loop.room(), batchSize)
        if (free < loop.atLeast) {
          loop.onWaitingForRoom(true)
          await loop.signal.wait(pollIntervalMs)
          loop.onWaitingForRoom(false)
          continue
        }
        const claim = await claimEmails(ctx.db, { urgent: 0, bulk: 0, [loop.kind]: free }, leaseSeconds)
        // Emails claimed while stopping are still sent; only a killed worker leaves them to their lease.
        if (isKilled()) break
        if (claim.emails.length > 0) dispatch(claim)
        if (claim[loop.kind] < free) await loop.signal.wait(pollIntervalMs)
      } catch (err) {
        if (state !== 'running') break
        ctx.log.error({ err, kind: loop.kind }, 'outbox loop failed; retrying')
        await loop.signal.wait(pollIntervalMs)
      }
    }
  }

  let leasesCheckedAt = 0
  const loops = Promise.all([
    claimLoop({
      kind: 'urgent',
      signal: urgentSignal,
      room: () => maxInFlight - inFlight.size,
      atLeast: batchSize,
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
    // Bulk mail is claimed a few dozen emails at a time, within its share of the emails in flight.
    claimLoop({
      kind: 'bulk',
      signal: bulkSignal,
      room: () => Math.min(maxBulkInFlight - bulkInFlight, maxInFlight - inFlight.size),
      atLeast: bulkClaimSize,
      onWaitingForRoom: (waiting) => {
        waitingForBulkRoom = waiting
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
      stopRenewing()
      await recorder.drain()
      await listener.close()
      await options.transport.close()
      if (ownsComposePool) await composePool.close()
    },
    async kill() {
      if (state === 'killed') return
      state = 'killed'
      unregisterLocalWake()
      stopRenewing()
      recorder.discard()
      wake()
      await options.transport.close({ force: true })
      if (ownsComposePool) await composePool.close()
      await loops
      await listener.close()
    },
  }
}
