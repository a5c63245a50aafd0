import { clientOfAddress } from '../../http/failed-auth-limit.js'
import type { FailureCounter } from '../../http/failure-counter.js'
import type { Logger } from '../../logger.js'

const windowMs = 60_000
const maxBlockedClients = 10_000

/**
 * The relay's side of the API's failed-authentication limit (http/failed-auth-limit.ts), over the same counter
 * and limit: a client address that gave more than `maxPerMinute` wrong passwords in a minute is refused unchecked
 * until its window ends, a right password too, so a guesser never learns which guess was right.
 */
export type FailedLogins = {
  /** Seconds until the address may try again, when it is blocked now. */
  blockedForSeconds(remoteAddress: string): number | undefined
  /** Counts a wrong password from the address; never throws (an unreachable store must not turn 535 into 451). */
  record(remoteAddress: string): Promise<void>
}

export function createFailedLogins(options: {
  maxPerMinute: number
  counter: () => Promise<FailureCounter>
  log: Pick<Logger, 'warn'>
}): FailedLogins {
  const { maxPerMinute, log } = options
  // Held in this process so that a right password costs no round trip to a shared store (as for the API).
  const blockedUntil = new Map<string, number>()
  return {
    blockedForSeconds(remoteAddress) {
      const client = clientOfAddress(remoteAddress)
      const until = blockedUntil.get(client)
      if (until === undefined) return undefined
      if (until > Date.now()) return Math.max(1, Math.ceil((until - Date.now()) / 1000))
      blockedUntil.delete(client)
      return undefined
    },
    async record(remoteAddress) {
      const client = clientOfAddress(remoteAddress)
      try {
        const { count, resetAtMs } = await (await options.counter()).record(client, windowMs)
        if (count < maxPerMinute) return
        if (blockedUntil.size >= maxBlockedClients) {
          for (const [blocked, until] of blockedUntil) if (until <= Date.now()) blockedUntil.delete(blocked)
        }
        blockedUntil.set(client, resetAtMs)
      } catch (err) {
        log.warn({ err }, 'could not count a failed SMTP login (REDIS_URL)')
      }
    },
  }
}
