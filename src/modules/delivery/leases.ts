import type { Database } from '../../db/client.js'
import type { Logger } from '../../logger.js'
import { renewLeases } from './sql.js'

/** One claim of an email: after a stall the same email may be claimed again while the old claim is in flight. */
type HeldClaim = { id: string; attempts: number }

/**
 * The leases of the emails this worker has claimed and not finished, kept alive on a timer of their own: the claim
 * loops may wait on a full transport or a slow claim, and a renewal that came late would hand a live worker's
 * emails to another one, which sends them again. One statement per interval for every email in flight, whatever
 * the send rate (docs/decisions/0013).
 */
export type LeaseKeeper = {
  hold(claim: HeldClaim): void
  /** The claim finished (sent, failed or given back). */
  release(claim: HeldClaim): void
  /** Its lease ran out while this worker stalled: another worker may be sending it, so this one must not. */
  isLost(claim: HeldClaim): boolean
  stop(): void
}

/** A renewal that failed (a busy pool, a lost connection) is tried again this soon, well inside the lease. */
const renewalRetryMs = 1_000

export function keepLeases(ctx: { db: Database; log: Logger }, leaseSeconds: number): LeaseKeeper {
  const renewalIntervalMs = (leaseSeconds * 1_000) / 3
  /** Email id → the attempt number of this worker's claim. */
  const held = new Map<string, number>()
  const lost = new Map<string, number>()
  let renewing = true
  let timer: NodeJS.Timeout | undefined

  const renew = async () => {
    let nextMs = renewalIntervalMs
    try {
      const claims = [...held].map(([id, attempts]) => ({ id, attempts }))
      const renewed = new Set(await renewLeases(ctx.db, claims, leaseSeconds))
      // An email finished meanwhile is not renewed either, but it is no longer held.
      const ranOut = claims.filter((claim) => !renewed.has(claim.id) && held.get(claim.id) === claim.attempts)
      for (const claim of ranOut) lost.set(claim.id, claim.attempts)
      if (ranOut.length > 0) {
        ctx.log.warn(
          { emails: ranOut.length },
          'leases of emails in flight ran out (this worker stalled); not sending them',
        )
      }
    } catch (err) {
      if (!renewing) return
      ctx.log.warn({ err }, 'renewing the leases of emails in flight failed; retrying')
      nextMs = Math.min(renewalRetryMs, renewalIntervalMs)
    }
    if (renewing) timer = setTimeout(renew, nextMs).unref()
  }
  timer = setTimeout(renew, renewalIntervalMs).unref()

  return {
    hold: ({ id, attempts }) => void held.set(id, attempts),
    release({ id, attempts }) {
      if (held.get(id) === attempts) held.delete(id)
      if (lost.get(id) === attempts) lost.delete(id)
    },
    isLost: ({ id, attempts }) => lost.get(id) === attempts,
    stop() {
      renewing = false
      clearTimeout(timer)
    },
  }
}
