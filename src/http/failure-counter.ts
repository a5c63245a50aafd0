import type { Redis } from 'ioredis'

/** Failures of one client in the current window, and when that window ends. */
type FailureCount = { count: number; resetAtMs: number }

/** Counts failures per client in fixed windows: in this process, or in Redis so that every API process shares them. */
export type FailureCounter = { record(client: string, windowMs: number): Promise<FailureCount> }

// A client's counter lives for one window; an attacker with many addresses cannot grow this map past the cap.
const maxClients = 100_000

export function memoryFailureCounter(now = () => Date.now()): FailureCounter {
  // Every window has the same length, so insertion order is expiry order: the oldest entries are at the front.
  const windows = new Map<string, FailureCount>()
  return {
    async record(client, windowMs) {
      const at = now()
      for (const [key, window] of windows) {
        if (window.resetAtMs > at && windows.size < maxClients) break
        windows.delete(key)
      }
      const current = windows.get(client)
      const window = current ?? { count: 0, resetAtMs: at + windowMs }
      window.count += 1
      if (!current) windows.set(client, window)
      return { ...window }
    },
  }
}

// One round trip: count, start the window on the first failure (or if its expiry was lost), report what is left.
const recordScript = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`

export function redisFailureCounter(redis: Redis, prefix: string): FailureCounter {
  return {
    async record(client, windowMs) {
      const reply = await redis.eval(recordScript, 1, `${prefix}${client}`, windowMs)
      const [count, ttlMs] = Array.isArray(reply) ? reply : []
      if (typeof count !== 'number' || typeof ttlMs !== 'number') throw new Error('unexpected reply from Redis')
      return { count, resetAtMs: Date.now() + ttlMs }
    },
  }
}
