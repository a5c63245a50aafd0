import { z } from 'zod'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import type { App } from '../../http/app-type.js'
import { sessionCookieName } from '../../http/auth.js'
import { userOf } from '../../http/project.js'
import { acceptInvitation, getInvitation } from '../members/invitations.js'
import { acceptInvitationBody, invitationQuery, invitationResponse } from '../members/schemas.js'
import { endSession, readSessionToken } from '../sessions/session.js'
import { credentials, loginBody, userView } from '../users/schemas.js'
import { getUser } from '../users/service.js'
import { startSession } from './cookie.js'
import { requestVerificationEmail, verifyEmail } from './email-verification.js'
import { requestPasswordReset, resetPassword } from './password-reset.js'
import {
  message,
  messageView,
  oauthConfigView,
  passwordResetRequestBody,
  resetPasswordBody,
  verifyEmailBody,
} from './schemas.js'
import { logIn, signUp } from './signup.js'

export function registerAuthRoutes(app: App, ctx: AppContext): void {
  const tags = ['auth']

  // Per client address: password guessing, and mail sent to addresses someone else types in.
  const limited = {
    auth: 'none' as const,
    rateLimit: { max: ctx.config.authRateLimitPerMinute, timeWindow: 60_000 },
  }

  app.post(
    '/auth/signup',
    { config: limited, schema: { tags, body: credentials, response: { 201: userView } } },
    async (request, reply) => {
      if (ctx.config.disableSignups) throw new AppError('SIGNUPS_DISABLED', 'Signups are disabled on this server')
      const user = await signUp(ctx, request.body)
      await startSession(ctx, reply, user.id)
      return reply.code(201).send(user)
    },
  )

  app.post(
    '/auth/login',
    { config: limited, schema: { tags, body: loginBody, response: { 200: userView } } },
    async (request, reply) => {
      const user = await logIn(ctx, request.body)
      await startSession(ctx, reply, user.id)
      return user
    },
  )

  // GET is the spec's; the dashboard uses POST, which another site cannot trigger with the (SameSite=Lax) cookie.
  app.route({
    method: ['GET', 'POST'],
    url: '/auth/logout',
    config: { auth: 'none' },
    schema: { tags },
    handler: async (request, reply) => {
      const token = request.cookies[sessionCookieName]
      const session = token ? await readSessionToken(ctx.config.secret, token) : undefined
      if (session) await endSession(ctx.db, session.sessionId)
      return reply.clearCookie(sessionCookieName, { path: '/' }).send({ success: true })
    },
  })

  app.post(
    '/auth/verify-email',
    { config: limited, schema: { tags, body: verifyEmailBody, response: { 200: messageView } } },
    async (request) => {
      await verifyEmail(ctx, request.body.token)
      return message('Email verified successfully')
    },
  )

  app.post(
    '/auth/request-verification',
    { config: { auth: 'user' }, schema: { tags, response: { 200: messageView } } },
    async (request) =>
      message(
        (await requestVerificationEmail(ctx, userOf(request))) === 'sent'
          ? 'Verification email sent'
          : 'Email already verified',
      ),
  )

  app.post(
    '/auth/request-password-reset',
    { config: limited, schema: { tags, body: passwordResetRequestBody, response: { 200: messageView } } },
    async (request) => {
      await requestPasswordReset(ctx, request.body.email)
      return message('If that email exists, a reset link has been sent')
    },
  )

  app.post(
    '/auth/reset-password',
    { config: limited, schema: { tags, body: resetPasswordBody, response: { 200: messageView } } },
    async (request) => {
      // A logged-in caller resetting their own password keeps this session; every other one ends.
      const token = request.cookies[sessionCookieName]
      const session = token ? await readSessionToken(ctx.config.secret, token) : undefined
      await resetPassword(ctx, request.body.token, request.body.newPassword, {
        userId: session?.userId ?? null,
        sessionId: session?.sessionId ?? null,
      })
      return message('Password reset successfully')
    },
  )

  // The holder of an invitation link sees which project it is for before signing up or logging in.
  app.get(
    '/auth/invitation',
    { config: limited, schema: { tags, querystring: invitationQuery, response: { 200: invitationResponse } } },
    async (request) => ({ success: true as const, data: await getInvitation(ctx, request.query.token) }),
  )

  app.post(
    '/auth/accept-invitation',
    {
      config: { auth: 'user' },
      schema: {
        tags,
        body: acceptInvitationBody,
        response: { 200: z.object({ success: z.literal(true), data: z.object({ projectId: z.uuid() }) }) },
      },
    },
    async (request) => {
      const user = await getUser(ctx.db, userOf(request))
      const data = await ctx.db.transaction((tx) => acceptInvitation(ctx, tx, request.body.token, user))
      return { success: true as const, data }
    },
  )

  app.get(
    '/auth/oauth-config',
    { config: { auth: 'none' }, schema: { tags, response: { 200: oauthConfigView } } },
    async () => ({
      success: true as const,
      data: { github: ctx.config.oauth.github !== undefined, google: ctx.config.oauth.google !== undefined },
    }),
  )
}
