import type { FastifyRequest } from 'fastify'

/**
 * A `preValidation` hook: a request sent without a body (or with `null`) is validated as `{}`, so the answer names
 * the missing fields instead of a missing body.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {}
}
