import type { FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { AuthProject, MemberRole } from './auth.js'

/** `/projects/:id/…` and `/users/@me/projects/:id/…`: the path names the project (`projectParam: 'id'`). */
export const projectIdParams = z.object({ id: z.uuid() })

/** Routes with `auth: 'secret'`, `'project'` or `'track'` only run with a project, so a missing one is a wiring bug. */
export function projectOf(request: FastifyRequest): string {
  if (!request.project) throw new Error(`route ${request.routeOptions.url} ran without a project`)
  return request.project.id
}

/** The project row the auth hook loaded, for rules that read its state (e.g. a paused stream). */
export function authProjectOf(request: FastifyRequest): AuthProject {
  if (!request.project) throw new Error(`route ${request.routeOptions.url} ran without a project`)
  return request.project
}

/** Routes with `auth: 'user'` only run with a session, so a missing user is a wiring bug, not a client error. */
export function userOf(request: FastifyRequest): string {
  if (!request.userId) throw new Error(`route ${request.routeOptions.url} ran without a session`)
  return request.userId
}

/**
 * Who acts on a project route, for rules about the target of the action (e.g. only an owner manages owners):
 * a session caller with their role, or a secret key, which is the project's owner-equivalent key.
 */
export type ProjectActor = { userId: string | null; role: MemberRole }

export function actorOf(request: FastifyRequest): ProjectActor {
  if (request.memberRole) return { userId: userOf(request), role: request.memberRole }
  if (request.keyKind === 'secret') return { userId: null, role: 'OWNER' }
  throw new Error(`route ${request.routeOptions.url} ran without a member role or a secret key`)
}
