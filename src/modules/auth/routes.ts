import type { FastifyReply } from 'fastify'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import type { App } from '../../http/app-type.js'
import { sessionCookieName } from '../../http/auth.js'
import { credentials, loginBody, userView } from '../users/schemas.js'
import { authenticateUser, createUser } from '../users/service.js'
import { createSessionToken, sessionLifetimeSeconds } from './session.js'

export function registerAuthRoutes(app: App, ctx: AppContext): void {
  const secureCookie = ctx.config.publicUrl.startsWith('https://')

  async function startSession(reply: FastifyReply, userId: string): Promise<void> {
    reply.setCookie(sessionCookieName, await createSessionToken(ctx.config.secret, userId), {
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookie,
      path: '/',
      maxAge: sessionLifetimeSeconds,
    })
  }

  const passwordRoute = {
    auth: 'none' as const,
    rateLimit: { max: ctx.config.authRateLimitPerMinute, timeWindow: 60_000 },
  }

  app.post(
    '/auth/signup',
    { config: passwordRoute, schema: { tags: ['auth'], body: credentials, response: { 201: userView } } },
    async (request, reply) => {
      if (ctx.config.disableSignups) throw new AppError('SIGNUPS_DISABLED', 'Signups are disabled on this server')
      const user = await createUser(ctx.db, request.body)
      await startSession(reply, user.id)
      return reply.code(201).send(user)
    },
  )

  app.post(
    '/auth/login',
    { config: passwordRoute, schema: { tags: ['auth'], body: loginBody, response: { 200: userView } } },
    async (request, reply) => {
      const user = await authenticateUser(ctx.db, request.body.email, request.body.password)
      await startSession(reply, user.id)
      return user
    },
  )

  app.get('/auth/logout', { config: { auth: 'none' }, schema: { tags: ['auth'] } }, async (_request, reply) =>
    reply.clearCookie(sessionCookieName, { path: '/' }).send({ success: true }),
  )
}
