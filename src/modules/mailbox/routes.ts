import type { FastifyRequest } from 'fastify'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { capturedMessageParams, mailboxPage, mailboxQuery } from './schemas.js'
import { getCapturedMessageRaw, listCapturedMessages } from './service.js'

function projectId(request: FastifyRequest): string {
  if (!request.project) throw new Error('route without a project scope')
  return request.project.id
}

/** The local mailbox of the `capture` transport: what would have been sent, as lists and raw `.eml`. */
export function registerMailboxRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'project' as const, role: 'MEMBER' as const } }
  const tags = ['mailbox']

  app.get(
    '/mailbox',
    { ...route, schema: { tags, querystring: mailboxQuery, response: { 200: mailboxPage } } },
    async (request) => listCapturedMessages(ctx.db, projectId(request), request.query),
  )

  const raw = { ...route, schema: { tags, params: capturedMessageParams } }
  app.get('/mailbox/:id/raw', raw, async (request, reply) =>
    reply.type('message/rfc822').send(await getCapturedMessageRaw(ctx.db, projectId(request), request.params.id)),
  )
  app.get('/mailbox/:id.eml', raw, async (request, reply) =>
    reply
      .type('message/rfc822')
      .header('content-disposition', `attachment; filename="${request.params.id}.eml"`)
      .send(await getCapturedMessageRaw(ctx.db, projectId(request), request.params.id)),
  )
}
