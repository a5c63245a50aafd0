import type { FastifyRequest } from 'fastify'
import { AppError } from '../../errors.js'
import type { IdempotencyClaim } from './service.js'

const printableAscii = /^[\x20-\x7e]{1,255}$/

/** Reads and checks the optional Idempotency-Key header; the claim itself happens in the service's transaction. */
export function idempotencyClaim(request: FastifyRequest, ttlHours: number): IdempotencyClaim | undefined {
  const header = request.headers['idempotency-key']
  if (header === undefined) return undefined
  const key = Array.isArray(header) ? undefined : header
  if (key === undefined || !printableAscii.test(key)) {
    throw new AppError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 printable ASCII characters')
  }
  return { key, method: request.method, path: request.routeOptions.url ?? request.url, ttlHours }
}
