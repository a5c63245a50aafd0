import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { AppError } from '../../errors.js'

const digest = (value: string) => createHash('sha256').update(value).digest()

/**
 * `/metrics` answers only with `Authorization: Bearer <METRICS_TOKEN>`. `token` undefined means no token can
 * open it (on the API port: metrics are off there until one is set). Compared in constant time.
 */
export function assertMetricsToken(request: FastifyRequest, token: string | undefined): void {
  if (token === undefined) {
    throw new AppError('UNAUTHORIZED', 'Metrics are not enabled on this port', {
      suggestion: 'Set METRICS_TOKEN and send "Authorization: Bearer <token>", or scrape METRICS_PORT',
    })
  }
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1]
  if (given === undefined || !timingSafeEqual(digest(given), digest(token))) {
    throw new AppError('UNAUTHORIZED', 'Missing or invalid metrics token', {
      suggestion: 'Send "Authorization: Bearer <METRICS_TOKEN>"',
    })
  }
}
