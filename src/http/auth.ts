import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../errors.js'

/**
 * Who may call a route, declared on the route itself (`config: { auth }`); a route without one fails at boot.
 * - `none`: anyone
 * - `user`: a logged-in dashboard user (session cookie)
 * - `secret`: a project's secret key
 * - `track`: a project's public or secret key (DESIGN.md §4)
 * - `project`: a secret key, or a session cookie with `X-Project-Id` naming a project the user belongs to
 */
export type AuthScope = 'none' | 'user' | 'secret' | 'track' | 'project'

export type AuthProject = {
  id: string
  name: string
  disabled: boolean
  disabledReason: string | null
  /** Set while the reputation guard pauses the project's sending. */
  sendingPausedReason: string | null
}

export type AuthResolvers = {
  findProjectByKey(kind: 'public' | 'secret', key: string): Promise<AuthProject | undefined>
  userIdFromSession(token: string): Promise<string | undefined>
  findMemberProject(userId: string, projectId: string): Promise<AuthProject | undefined>
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthScope
    /** Sending routes refuse disabled and reputation-paused projects with 403. */
    sending?: boolean
  }
  interface FastifyRequest {
    project: AuthProject | null
    userId: string | null
    keyKind: 'public' | 'secret' | null
  }
}

export const sessionCookieName = 'mailroom_session'
const keyPattern = /^(pk|sk)_[0-9a-f]{64}$/
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function invalidKey(message: string): AppError {
  return new AppError('INVALID_API_KEY', message, {
    suggestion: 'Send "Authorization: Bearer <key>" with the project key the endpoint needs',
  })
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (!header) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match?.[1]) throw invalidKey('Authorization header must be "Bearer <API key>"')
  return match[1]
}

async function authenticateKey(
  resolvers: AuthResolvers,
  request: FastifyRequest,
  token: string,
  allowed: readonly ('public' | 'secret')[],
): Promise<void> {
  const match = keyPattern.exec(token)
  if (!match) throw invalidKey('Invalid API key')
  const kind = match[1] === 'pk' ? 'public' : 'secret'
  if (!allowed.includes(kind)) {
    throw invalidKey(
      kind === 'public'
        ? 'A public key can only be used with /v1/track; use the secret key for this endpoint'
        : 'This endpoint does not accept a secret key',
    )
  }
  const project = await resolvers.findProjectByKey(kind, token)
  if (!project) throw invalidKey('Invalid API key')
  request.project = project
  request.keyKind = kind
}

async function authenticateSession(resolvers: AuthResolvers, request: FastifyRequest): Promise<string | undefined> {
  const token = request.cookies[sessionCookieName]
  if (!token) return undefined
  const userId = await resolvers.userIdFromSession(token)
  if (userId) request.userId = userId
  return userId
}

async function authenticateProjectMember(resolvers: AuthResolvers, request: FastifyRequest): Promise<void> {
  const userId = await authenticateSession(resolvers, request)
  if (!userId) throw invalidKey('Missing API key or session')
  const projectId = request.headers['x-project-id']
  if (typeof projectId !== 'string' || projectId === '') {
    throw new AppError('BAD_REQUEST', 'X-Project-Id header is required with a session')
  }
  const project = uuidPattern.test(projectId) ? await resolvers.findMemberProject(userId, projectId) : undefined
  if (!project) throw new AppError('NOT_FOUND', 'Project not found')
  request.project = project
}

export function registerAuth(app: FastifyInstance, resolvers: AuthResolvers): void {
  app.decorateRequest('project', null)
  app.decorateRequest('userId', null)
  app.decorateRequest('keyKind', null)

  app.addHook('onRoute', (route) => {
    // @fastify/swagger-ui registers its own static routes; everything else must say who may call it.
    if (route.url.startsWith('/docs')) {
      route.config = { ...route.config, auth: 'none' }
      return
    }
    if (!route.config?.auth) throw new Error(`Route ${route.method} ${route.url} declares no auth scope`)
  })

  app.addHook('onRequest', async (request) => {
    const scope = request.routeOptions.config.auth
    if (!scope || scope === 'none') return
    if (scope === 'user') {
      if (!(await authenticateSession(resolvers, request))) throw new AppError('UNAUTHORIZED', 'Log in first')
      return
    }
    const token = bearerToken(request)
    if (token) await authenticateKey(resolvers, request, token, scope === 'track' ? ['public', 'secret'] : ['secret'])
    else if (scope === 'project') await authenticateProjectMember(resolvers, request)
    else throw invalidKey('Missing API key')

    if (request.routeOptions.config.sending && request.project?.disabled) {
      throw new AppError(
        'PROJECT_DISABLED',
        `Sending is disabled for this project: ${request.project.disabledReason ?? 'disabled'}`,
      )
    }
    if (request.routeOptions.config.sending && request.project?.sendingPausedReason) {
      throw new AppError(
        'PROJECT_SENDING_PAUSED',
        `Sending is paused for this project: ${request.project.sendingPausedReason}`,
        {
          suggestion:
            'A project owner can review GET /projects/:id/security and resume sending once the list is cleaned',
        },
      )
    }
  })
}
