import type { FastifyReply } from 'fastify'
import type { AppContext } from '../../context.js'
import { sessionCookieName } from '../../http/auth.js'
import { createSession, sessionLifetimeSeconds } from '../sessions/session.js'

/** Starts a session for the user and sets its cookie on the reply (password login, signup, OAuth). */
export async function startSession(ctx: AppContext, reply: FastifyReply, userId: string): Promise<void> {
  reply.setCookie(sessionCookieName, await createSession(ctx.db, ctx.config.secret, userId), {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.config.publicUrl.startsWith('https://'),
    path: '/',
    maxAge: sessionLifetimeSeconds,
  })
}
