import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { AppError } from '../errors.js'
import type { Logger } from '../logger.js'

export type RateLimitOptions = {
  maxPerMinute: number
  /** Shared counters for several API processes; in-process when absent. */
  redis?: Redis
}

/**
 * The shared store's connection, ready before the server takes requests: without an offline queue a command sent
 * while it still connects fails, and the rate limiter then answers 500 (the first requests after a start did).
 * A Redis that cannot be reached is logged, and the server starts anyway, as it did; ioredis keeps reconnecting.
 */
export async function connectRateLimitStore(url: string, log: Logger): Promise<Redis> {
  // ioredis is loaded only when configured.
  const ioredis = await import('ioredis')
  const redis = new ioredis.Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true })
  await redis.connect().catch((err: unknown) => log.warn({ err }, 'the rate-limit store (REDIS_URL) is not reachable'))
  return redis
}

/** Per project (or per user, or per address for anonymous routes). Runs after auth, which is an earlier onRequest hook. */
export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: options.maxPerMinute,
    timeWindow: 60_000,
    hook: 'onRequest',
    enableDraftSpec: true,
    nameSpace: 'mailroom-rate-limit:',
    ...(options.redis ? { redis: options.redis } : {}),
    keyGenerator: (request) =>
      request.project
        ? `project:${request.project.id}`
        : request.userId
          ? `user:${request.userId}`
          : `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit exceeded: ${context.max} requests per minute. Retry in ${context.after}.`,
        {
          details: { limit: context.max, retryAfterSeconds: Math.ceil(context.ttl / 1000) },
        },
      ),
  })
}
