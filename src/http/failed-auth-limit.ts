import { isIP } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'
import ipaddr from 'ipaddr.js'
import { AppError } from '../errors.js'
import type { FailureCounter } from './failure-counter.js'

const windowMs = 60_000
const maxBlockedClients = 10_000

/**
 * Answers 429 to a client address that presented wrong API keys more than `maxPerMinute` times in a minute. The
 * project rate limit cannot: it counts per project, and a wrong key names none.
 */
export type FailedAuthLimit = {
  /**
   * Runs `check` (the key lookup) unless the caller's address is over its limit, and counts the check's
   * INVALID_API_KEY failures. Over the limit every key is refused unchecked, a right one too: answering a right
   * key would tell a guesser when a guess was right, and refusing costs no lookup.
   */
  guard(request: FastifyRequest, reply: FastifyReply, check: () => Promise<void>): Promise<void>
}

/**
 * The address a limit applies to. An IPv6 client usually holds a whole /64, so it is counted as one client, as
 * it would be with one IPv4 address; an IPv4-mapped IPv6 address is its IPv4 address.
 */
export function clientOfAddress(address: string): string {
  if (isIP(address) !== 6) return address
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  return `${parsed.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`
}

export function createFailedAuthLimit(options: {
  maxPerMinute: number
  counter: FailureCounter
  log: Pick<FastifyRequest['log'], 'warn'>
}): FailedAuthLimit {
  const { maxPerMinute, counter, log } = options
  /**
   * Addresses over their limit, until their window ends. Held in this process so that allowed requests cost no
   * round trip to a shared store: each process learns of a block from the count its own next failure reads,
   * so with several processes an address gets at most one more try per process.
   */
  const blockedUntil = new Map<string, number>()

  function refuse(reply: FastifyReply, resetAtMs: number): AppError {
    const retryAfterSeconds = Math.max(1, Math.ceil((resetAtMs - Date.now()) / 1000))
    reply.header('retry-after', String(retryAfterSeconds))
    return new AppError(
      'RATE_LIMIT_EXCEEDED',
      `Too many requests with a wrong API key from this address: ${maxPerMinute} per minute. Retry in ${retryAfterSeconds} seconds.`,
      { details: { limit: maxPerMinute, retryAfterSeconds } },
    )
  }

  async function recordFailure(client: string): Promise<void> {
    try {
      const { count, resetAtMs } = await counter.record(client, windowMs)
      if (count < maxPerMinute) return
      // Blocks end as their windows do; ended ones of addresses that never came back go when there are many.
      if (blockedUntil.size >= maxBlockedClients) {
        for (const [blocked, until] of blockedUntil) if (until <= Date.now()) blockedUntil.delete(blocked)
      }
      blockedUntil.set(client, resetAtMs)
    } catch (err) {
      // The 401 still goes out: an unreachable store must not turn a wrong key into a 500.
      log.warn({ err }, 'could not count a failed authentication (REDIS_URL)')
    }
  }

  return {
    async guard(request, reply, check) {
      const client = clientOfAddress(request.ip)
      const until = blockedUntil.get(client)
      if (until !== undefined) {
        if (until > Date.now()) throw refuse(reply, until)
        blockedUntil.delete(client)
      }
      try {
        await check()
      } catch (err) {
        if (err instanceof AppError && err.code === 'INVALID_API_KEY') await recordFailure(client)
        throw err
      }
    },
  }
}
