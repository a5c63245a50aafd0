import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { AppError } from '../errors.js'

export type RateLimitOptions = {
  maxPerMinute: number
  /** Shared counters for several API processes; in-process when absent. */
  redis?: Redis
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
