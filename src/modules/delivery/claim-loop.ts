import type { Database } from '../../db/client.js'
import type { WakeSignal } from '../../jobs/wake-signal.js'
import type { Logger } from '../../logger.js'
import { type Claim, type ClaimLimits, claimEmails } from './sql.js'

export type ClaimLoop = {
  kind: keyof ClaimLimits
  /** Woken when mail of this kind is committed, and when room frees up while the loop waits for it. */
  signal: WakeSignal
  /** How many more emails of this kind may be in flight now. */
  room: () => number
  /** The loop claims only once this much room is free, not an email at a time (asked before each claim). */
  atLeast: () => number
  onWaitingForRoom: (waiting: boolean) => void
  beforeClaim: () => Promise<void>
}

export type ClaimLoopSettings = {
  db: Database
  log: Logger
  batchSize: number
  pollIntervalMs: number
  leaseSeconds: number
  isRunning: () => boolean
  isKilled: () => boolean
  /** Takes the claimed emails in flight; must not wait for their delivery. */
  dispatch: (claim: Claim) => void
}

/**
 * Claims emails of one kind while the outbox runs. Waits on the loop's signal while its room leaves less than
 * `atLeast`, and after a claim that took fewer than it asked for (no more due mail of its kind for now); polls
 * as a fallback for a lost wake.
 */
export async function runClaimLoop(settings: ClaimLoopSettings, loop: ClaimLoop): Promise<void> {
  const { db, log, batchSize, pollIntervalMs, leaseSeconds } = settings
  while (settings.isRunning()) {
    try {
      await loop.beforeClaim()
      const free = Math.min(loop.room(), batchSize)
      if (free < loop.atLeast()) {
        loop.onWaitingForRoom(true)
        await loop.signal.wait(pollIntervalMs)
        loop.onWaitingForRoom(false)
        continue
      }
      const claim = await claimEmails(db, { urgent: 0, bulk: 0, [loop.kind]: free }, leaseSeconds)
      // Emails claimed while stopping are still sent; only a killed worker leaves them to their lease.
      if (settings.isKilled()) break
      if (claim.emails.length > 0) settings.dispatch(claim)
      if (claim[loop.kind] < free) await loop.signal.wait(pollIntervalMs)
    } catch (err) {
      if (!settings.isRunning()) break
      log.error({ err, kind: loop.kind }, 'outbox loop failed; retrying')
      await loop.signal.wait(pollIntervalMs)
    }
  }
}
