import type { FastifyReply } from 'fastify'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { roleAtLeast } from '../../http/auth.js'
import { actorOf, projectOf, userOf } from '../../http/project.js'
import { capturedMessageParams, mailboxPage, mailboxQuery } from './schemas.js'
import { getAccountMessageRaw, getCapturedMessageRaw, listAccountMessages, listCapturedMessages } from './service.js'

const sendRaw = (reply: FastifyReply, raw: Buffer) => reply.type('message/rfc822').send(raw)

/**
 * The local mailbox of the `capture` transport: what would have been sent, as lists and raw `.eml`. A project's
 * shows its own mail, and to those who may invite its invitation emails; `/users/@me/mailbox` shows a user their own
 * account emails (verification, password reset), with or without a project, verified or not.
 */
export function registerCapturedMailRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'project' as const, role: 'MEMBER' as const } }
  const tags = ['mailbox']
  const options = (request: Parameters<typeof actorOf>[0]) => ({
    invitations: roleAtLeast(actorOf(request).role, 'ADMIN'),
  })

  app.get(
    '/mailbox',
    { ...route, schema: { tags, querystring: mailboxQuery, response: { 200: mailboxPage } } },
    async (request) => listCapturedMessages(ctx.db, projectOf(request), request.query, options(request)),
  )

  const raw = { ...route, schema: { tags, params: capturedMessageParams } }
  app.get('/mailbox/:id/raw', raw, async (request, reply) =>
    sendRaw(reply, await getCapturedMessageRaw(ctx.db, projectOf(request), request.params.id, options(request))),
  )
  app.get('/mailbox/:id.eml', raw, async (request, reply) =>
    sendRaw(
      reply.header('content-disposition', `attachment; filename="${request.params.id}.eml"`),
      await getCapturedMessageRaw(ctx.db, projectOf(request), request.params.id, options(request)),
    ),
  )

  const user = { config: { auth: 'user' as const } }
  app.get(
    '/users/@me/mailbox',
    { ...user, schema: { tags, querystring: mailboxQuery, response: { 200: mailboxPage } } },
    async (request) => listAccountMessages(ctx.db, userOf(request), request.query),
  )
  app.get(
    '/users/@me/mailbox/:id/raw',
    { ...user, schema: { tags, params: capturedMessageParams } },
    async (request, reply) => sendRaw(reply, await getAccountMessageRaw(ctx.db, userOf(request), request.params.id)),
  )
}
