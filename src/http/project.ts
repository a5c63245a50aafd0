import type { FastifyRequest } from 'fastify'

/** Routes with `auth: 'secret'`, `'project'` or `'track'` only run with a project, so a missing one is a wiring bug. */
export function projectOf(request: FastifyRequest): string {
  if (!request.project) throw new Error(`route ${request.routeOptions.url} ran without a project`)
  return request.project.id
}

/** Routes with `auth: 'user'` only run with a session, so a missing user is a wiring bug, not a client error. */
export function userOf(request: FastifyRequest): string {
  if (!request.userId) throw new Error(`route ${request.routeOptions.url} ran without a session`)
  return request.userId
}
