import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import {
  getWebhookMessage,
  listWebhookMessages,
  replayWebhookMessages,
  retryWebhookMessage,
  sendTestMessage,
} from './messages.js'
import {
  webhookCreate,
  webhookCreated,
  webhookIdParams,
  webhookList,
  webhookMessageDetail,
  webhookMessageListQuery,
  webhookMessagePage,
  webhookMessageParams,
  webhookMessageView,
  webhookReplay,
  webhookReplayed,
  webhookSaved,
  webhookSecretRotated,
  webhookUpdate,
  webhookView,
} from './schemas.js'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from './service.js'
import { wakeWebhookDelivery } from './wake.js'

/** Project webhooks: endpoints, their secrets, and their delivery log with retry, replay and a test event. */
export function registerWebhookRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'project' as const, role: 'MEMBER' as const } }
  // An endpoint receives every matching event of the project, and its secret proves them: admins manage them.
  const admin = { config: { auth: 'project' as const, role: 'ADMIN' as const } }
  const tags = ['webhooks']
  const params = webhookIdParams

  app.get('/webhooks', { ...route, schema: { tags, response: { 200: webhookList } } }, async (request) =>
    listWebhooks(ctx.db, projectOf(request)),
  )

  app.post(
    '/webhooks',
    { ...admin, schema: { tags, body: webhookCreate, response: { 201: webhookCreated } } },
    async (request, reply) =>
      reply.code(201).send(await createWebhook(ctx.db, ctx.config, projectOf(request), request.body)),
  )

  app.get('/webhooks/:id', { ...route, schema: { tags, params, response: { 200: webhookView } } }, async (request) =>
    getWebhook(ctx.db, projectOf(request), request.params.id),
  )

  app.patch(
    '/webhooks/:id',
    { ...admin, schema: { tags, params, body: webhookUpdate, response: { 200: webhookSaved } } },
    async (request) => updateWebhook(ctx.db, ctx.config, projectOf(request), request.params.id, request.body),
  )

  app.delete('/webhooks/:id', { ...admin, schema: { tags, params } }, async (request, reply) => {
    await deleteWebhook(ctx.db, projectOf(request), request.params.id)
    return reply.code(204).send()
  })

  app.post(
    '/webhooks/:id/rotate-secret',
    { ...admin, schema: { tags, params, response: { 200: webhookSecretRotated } } },
    async (request) => rotateWebhookSecret(ctx.db, ctx.config, projectOf(request), request.params.id),
  )

  app.get(
    '/webhooks/:id/messages',
    { ...route, schema: { tags, params, querystring: webhookMessageListQuery, response: { 200: webhookMessagePage } } },
    async (request) => listWebhookMessages(ctx.db, projectOf(request), request.params.id, request.query),
  )

  app.get(
    '/webhooks/:id/messages/:messageId',
    { ...route, schema: { tags, params: webhookMessageParams, response: { 200: webhookMessageDetail } } },
    async (request) => getWebhookMessage(ctx.db, projectOf(request), request.params.id, request.params.messageId),
  )

  app.post(
    '/webhooks/:id/messages/:messageId/retry',
    { ...admin, schema: { tags, params: webhookMessageParams, response: { 202: webhookMessageView } } },
    async (request, reply) => {
      const message = await retryWebhookMessage(ctx.db, projectOf(request), request.params.id, request.params.messageId)
      wakeWebhookDelivery(ctx.pool)
      return reply.code(202).send(message)
    },
  )

  app.post(
    '/webhooks/:id/replay',
    { ...admin, schema: { tags, params, body: webhookReplay, response: { 202: webhookReplayed } } },
    async (request, reply) => {
      const replayed = await replayWebhookMessages(ctx.db, projectOf(request), request.params.id, request.body)
      wakeWebhookDelivery(ctx.pool)
      return reply.code(202).send(replayed)
    },
  )

  app.post(
    '/webhooks/:id/test',
    { ...admin, schema: { tags, params, response: { 202: webhookMessageView } } },
    async (request, reply) => {
      const message = await sendTestMessage(ctx.db, projectOf(request), request.params.id)
      wakeWebhookDelivery(ctx.pool)
      return reply.code(202).send(message)
    },
  )
}
