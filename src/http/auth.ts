import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../errors.js'
import type { FailedAuthLimit } from './failed-auth-limit.js'
import { type MemberRole, roleAtLeast } from './roles.js'

/**
 * Who may call a route, declared on the route itself (`config: { auth }`); a route without one fails at boot.
 * - `none`: anyone
 * - `user`: a logged-in dashboard user (session cookie)
 * - `secret`: a project's secret key
 * - `track`: a project's public or secret key (DESIGN.md §4)
 * - `project`: a secret key, or a session cookie with `X-Project-Id` naming a project the user belongs to
 *
 * Routes that act on a project also declare `role`, the least member role a session caller needs (see
 * README, "Accounts, teams and roles" for the table). A secret key is the project's owner-equivalent key and passes every
 * role. `projectParam` names the path parameter that names the project (`/projects/:id/...`): a session
 * caller's project then comes from the path instead of `X-Project-Id`, and a key must belong to it.
 */
export type AuthScope = 'none' | 'user' | 'secret' | 'track' | 'project'

export { type MemberRole, memberRoles, roleAtLeast } from './roles.js'

export type AuthProject = {
  id: string
  name: string
  disabled: boolean
  disabledReason: string | null
  /** Set while the reputation guard pauses all of the project's sending. */
  sendingPausedReason: string | null
  /** Set while the reputation guard pauses the project's marketing stream only. */
  marketingPausedReason: string | null
}

export type AuthSession = { userId: string; sessionId: string; emailVerified: boolean }

export type AuthResolvers = {
  findProjectByKey(kind: 'public' | 'secret', key: string): Promise<AuthProject | undefined>
  /** The live session a cookie names; undefined once it was ended (logout, password reset, removal) or expired. */
  sessionFromToken(token: string): Promise<AuthSession | undefined>
  findMemberProject(userId: string, projectId: string): Promise<(AuthProject & { role: MemberRole }) | undefined>
  /** Unverified password accounts are refused on project routes (REQUIRE_EMAIL_VERIFICATION). */
  requireEmailVerification: boolean
}

/** What a route declares about its callers, as the auth hook read it at boot; the role tests walk this table. */
export type RouteAccess = {
  method: string
  url: string
  auth: AuthScope
  role: MemberRole | undefined
  projectParam: string | undefined
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthScope
    /** The least member role a session caller needs; required on every route that acts on a project. */
    role?: MemberRole
    /** The path parameter naming the project, for routes under `/projects/:id` and `/users/@me/projects/:id`. */
    projectParam?: string
    /** The route queues mail: a disabled project is refused with 403 PROJECT_DISABLED and nothing changes. */
    sending?: boolean
    /**
     * A sending route that also refuses while the reputation guard pauses the stream it sends (403
     * PROJECT_SENDING_PAUSED): `transactional` only while all of the project's sending is paused, `marketing` also
     * while its marketing stream is. Without it the mail is accepted and waits at the outbox until an owner
     * resumes (docs/decisions/0005).
     */
    refusedWhilePaused?: 'transactional' | 'marketing'
  }
  interface FastifyInstance {
    routeAccess: RouteAccess[]
  }
  interface FastifyRequest {
    project: AuthProject | null
    userId: string | null
    sessionId: string | null
    /** The session caller's role in `project`; null for key callers (owner-equivalent) and user-only routes. */
    memberRole: MemberRole | null
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

function bearerToken(header: string): string {
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

async function authenticateSession(
  resolvers: AuthResolvers,
  request: FastifyRequest,
): Promise<AuthSession | undefined> {
  const token = request.cookies[sessionCookieName]
  if (!token) return undefined
  const session = await resolvers.sessionFromToken(token)
  if (session) {
    request.userId = session.userId
    request.sessionId = session.sessionId
  }
  return session
}

/**
 * The project a route's path names. Undefined for a value that is no uuid: this runs before params validation,
 * which then answers it with its usual 422 (and the text guard's reasons), so the handler never runs.
 */
function projectIdFromPath(request: FastifyRequest, param: string): string | undefined {
  const value = (request.params as Record<string, unknown> | undefined)?.[param]
  return typeof value === 'string' && uuidPattern.test(value) ? value : undefined
}

async function authenticateProjectMember(
  resolvers: AuthResolvers,
  request: FastifyRequest,
  session: AuthSession,
): Promise<void> {
  const { role, projectParam } = request.routeOptions.config
  let projectId: string
  if (projectParam) {
    const fromPath = projectIdFromPath(request, projectParam)
    if (!fromPath) return
    projectId = fromPath
  } else {
    const header = request.headers['x-project-id']
    if (typeof header !== 'string' || header === '') {
      throw new AppError('BAD_REQUEST', 'X-Project-Id header is required with a session')
    }
    projectId = header
  }
  const project = uuidPattern.test(projectId) ? await resolvers.findMemberProject(session.userId, projectId) : undefined
  // Not a member and no such project answer alike, so ids of other people's projects cannot be probed.
  if (!project) throw new AppError('NOT_FOUND', 'Project not found')
  if (resolvers.requireEmailVerification && !session.emailVerified) {
    throw new AppError('EMAIL_VERIFICATION_REQUIRED', 'Verify your email address before using a project', {
      suggestion:
        'Follow the link in the verification email, or ask for a new one with POST /auth/request-verification',
    })
  }
  const { role: memberRole, ...authProject } = project
  if (role && !roleAtLeast(memberRole, role)) {
    throw new AppError('FORBIDDEN', `This needs the ${role} role or higher in the project; you are ${memberRole}`, {
      details: { requiredRole: role, role: memberRole },
    })
  }
  request.project = authProject
  request.memberRole = memberRole
}

const projectPathPattern = /^\/(users\/@me\/)?projects\/:/

/** Boot-time check of a route's declaration: who may call it and, for project routes, with which role. */
function checkRouteDeclaration(method: string, url: string, config: FastifyContextConfig | undefined): void {
  const where = `Route ${method} ${url}`
  if (!config?.auth) throw new Error(`${where} declares no auth scope`)
  if (config.auth === 'project' && !config.role) throw new Error(`${where} declares no minimum role`)
  if (projectPathPattern.test(url) && !(config.role && config.projectParam)) {
    throw new Error(`${where} acts on the project in its path: declare role and projectParam`)
  }
  if (config.projectParam && !url.includes(`:${config.projectParam}`)) {
    throw new Error(`${where} names projectParam ${config.projectParam}, which is not in its path`)
  }
  // The sending checks run on the project a key or X-Project-Id names, after those scopes authenticate.
  if ((config.sending || config.refusedWhilePaused) && (config.auth === 'none' || config.auth === 'user')) {
    throw new Error(`${where} is a sending route: declare the secret, track or project scope`)
  }
}

export function registerAuth(app: FastifyInstance, resolvers: AuthResolvers, failedAuthLimit: FailedAuthLimit): void {
  app.decorateRequest('project', null)
  app.decorateRequest('userId', null)
  app.decorateRequest('sessionId', null)
  app.decorateRequest('memberRole', null)
  app.decorateRequest('keyKind', null)
  const routeAccess: RouteAccess[] = []
  app.decorate('routeAccess', routeAccess)

  app.addHook('onRoute', (route) => {
    // @fastify/swagger-ui registers its own static routes; everything else must say who may call it.
    if (route.url.startsWith('/docs')) {
      route.config = { ...route.config, auth: 'none' }
      return
    }
    for (const method of [route.method].flat()) {
      checkRouteDeclaration(method, route.url, route.config)
      const { auth = 'none', role, projectParam } = route.config ?? {}
      if (method !== 'HEAD') routeAccess.push({ method, url: route.url, auth, role, projectParam })
    }
  })

  app.addHook('onRequest', async (request, reply) => {
    const { auth: scope, projectParam } = request.routeOptions.config
    if (!scope || scope === 'none') return
    if (scope === 'user') {
      const session = await authenticateSession(resolvers, request)
      if (!session) throw new AppError('UNAUTHORIZED', 'Log in first')
      if (projectParam) await authenticateProjectMember(resolvers, request, session)
      return
    }
    const header = request.headers.authorization
    if (header) {
      const allowed = scope === 'track' ? (['public', 'secret'] as const) : (['secret'] as const)
      await failedAuthLimit.guard(request, reply, () =>
        authenticateKey(resolvers, request, bearerToken(header), allowed),
      )
      const fromPath = projectParam ? projectIdFromPath(request, projectParam) : undefined
      if (fromPath && fromPath !== request.project?.id) {
        throw new AppError('NOT_FOUND', 'Project not found')
      }
    } else if (scope === 'project') {
      const session = await authenticateSession(resolvers, request)
      if (!session) throw invalidKey('Missing API key or session')
      await authenticateProjectMember(resolvers, request, session)
    } else throw invalidKey('Missing API key')

    const { sending, refusedWhilePaused } = request.routeOptions.config
    if ((sending || refusedWhilePaused) && request.project?.disabled) {
      throw new AppError(
        'PROJECT_DISABLED',
        `Sending is disabled for this project: ${request.project.disabledReason ?? 'disabled'}`,
      )
    }
    if (refusedWhilePaused && request.project) assertStreamSending(request.project, refusedWhilePaused)
  })
}

/**
 * Refuses mail of a stream the reputation guard holds (403 PROJECT_SENDING_PAUSED, naming the reason): the
 * transactional stream while all sending is paused, the marketing stream also while it is paused alone.
 */
export function assertStreamSending(
  project: Pick<AuthProject, 'sendingPausedReason' | 'marketingPausedReason'>,
  stream: 'transactional' | 'marketing',
): void {
  const suggestion = 'A project owner can review GET /projects/:id/security and resume sending once the list is cleaned'
  if (project.sendingPausedReason) {
    throw new AppError('PROJECT_SENDING_PAUSED', `Sending is paused for this project: ${project.sendingPausedReason}`, {
      suggestion,
    })
  }
  if (stream === 'marketing' && project.marketingPausedReason) {
    throw new AppError(
      'PROJECT_SENDING_PAUSED',
      `Marketing sending is paused for this project: ${project.marketingPausedReason}`,
      { suggestion: `${suggestion}; transactional mail still goes out` },
    )
  }
}
