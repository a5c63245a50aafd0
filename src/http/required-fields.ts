import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.js'

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

/**
 * Some create endpoints (templates, segments, contacts) answer a missing required field with the spec's
 * plain 400 `{error}` body instead of a 422. Runs before schema validation; every other problem stays a 422.
 */
export function requireBodyFields(fields: readonly string[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const body = request.body ?? {}
    if (typeof body !== 'object' || Array.isArray(body)) return
    const missing = fields.filter((field) => isMissing((body as Record<string, unknown>)[field]))
    if (missing.length === 0) return
    const noun = missing.length === 1 ? 'field' : 'fields'
    throw new AppError('BAD_REQUEST', `Missing required ${noun}: ${missing.join(', ')}`, { plain: true })
  }
}
