import { randomUUID } from 'node:crypto'
import cookie from '@fastify/cookie'
import multipart from '@fastify/multipart'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify'
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod'
import type { AppContext } from './context.js'
import type { App } from './http/app-type.js'
import { registerAuth } from './http/auth.js'
import { frameworkErrorOptions, registerErrorHandlers } from './http/errors.js'
import { createFailedAuthLimit } from './http/failed-auth-limit.js'
import { memoryFailureCounter, redisFailureCounter } from './http/failure-counter.js'
import { registerJsonBody } from './http/json-body.js'
import { connectRateLimitStore, registerRateLimit } from './http/rate-limit.js'
import { lazyRequestLogger } from './http/request-logger.js'
import { registerDashboard } from './http/static.js'
import { registerTextGuard } from './http/text-guard.js'
import { validatorCompiler } from './http/validation.js'
import { amazonSnsTrust, type SnsTrust } from './mail/aws/sns.js'
import { registerMcpRoute } from './mcp/route.js'
import { registerActivityRoutes } from './modules/activity/routes.js'
import { registerAnalyticsRoutes } from './modules/analytics/routes.js'
import { registerAuthRoutes } from './modules/auth/routes.js'
import { registerBillingRoutes } from './modules/billing/routes.js'
import { registerCampaignRecipientRoutes } from './modules/campaigns/recipient-routes.js'
import { registerCampaignRoutes } from './modules/campaigns/routes.js'
import { registerCapturedMailRoutes } from './modules/captured-mail/routes.js'
import { registerConfigRoutes } from './modules/config/routes.js'
import { registerContactRoutes } from './modules/contacts/routes.js'
import { registerDomainRoutes } from './modules/domains/routes.js'
import { registerEmailRoutes } from './modules/emails/routes.js'
import { registerEventLogRoutes } from './modules/event-log/routes.js'
import { registerHealthRoutes } from './modules/health/routes.js'
import { registerMemberRoutes } from './modules/members/routes.js'
import { registerMetricsRoute, registerRequestMetrics } from './modules/metrics/routes.js'
import { registerOAuthRoutes } from './modules/oauth/routes.js'
import { registerOpenClickRoutes } from './modules/opens-clicks/routes.js'
import { registerProjectRoutes } from './modules/projects/routes.js'
import { batchedKeyLookup, findMemberProject } from './modules/projects/service.js'
import { registerProviderWebhookRoutes } from './modules/provider-webhooks/routes.js'
import { registerReputationRoutes } from './modules/reputation/routes.js'
import { reevaluateContacts } from './modules/segments/membership.js'
import { registerSegmentRoutes } from './modules/segments/routes.js'
import { registerSendRoutes } from './modules/send/routes.js'
import { findSession } from './modules/sessions/session.js'
import { registerSetupStateRoutes } from './modules/setup-state/routes.js'
import { registerSubscriptionRoutes } from './modules/subscriptions/routes.js'
import { registerSuppressionRoutes } from './modules/suppressions/routes.js'
import { registerTemplateRoutes } from './modules/templates/routes.js'
import { registerTrackRoutes } from './modules/track/routes.js'
import { registerUploadRoutes } from './modules/uploads/routes.js'
import { registerUserRoutes } from './modules/users/routes.js'
import { registerVerifyRoutes } from './modules/verify/routes.js'
import { registerWebhookRoutes } from './modules/webhooks/routes.js'
import { registerWorkflowExecutionRoutes } from './modules/workflows/executions/routes.js'
import { registerWorkflowRoutes } from './modules/workflows/routes.js'

const defaultBodyLimitBytes = 1024 * 1024

export type ServerOptions = {
  /** Which SNS certificates and subscription URLs to trust; Amazon's own hosts unless a test gives its own. */
  snsTrust?: SnsTrust
}

/** Builds the HTTP API on a context. Call `listen` (entry point) or `inject` (tests) on the result. */
export async function buildServer(ctx: AppContext, options: ServerOptions = {}): Promise<App> {
  const loggerInstance: FastifyBaseLogger = ctx.log
  const app = Fastify({
    loggerInstance,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: defaultBodyLimitBytes,
    // Signed link tokens in paths are longer than fastify's default limit of 100 characters.
    routerOptions: { maxParamLength: 512 },
    trustProxy: typeof ctx.config.trustProxy === 'boolean' ? ctx.config.trustProxy : [...ctx.config.trustProxy],
    ...frameworkErrorOptions,
  }).withTypeProvider<ZodTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  registerErrorHandlers(app)
  registerJsonBody(app)
  registerTextGuard(app)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  registerRequestMetrics(app, ctx.metrics)

  await app.register(cookie)
  // Streaming uploads; each route sets its own file size limit (request.file({ limits })).
  await app.register(multipart, { limits: { files: 1, fields: 10 } })
  await app.register(swagger, {
    openapi: {
      info: { title: 'Mailroom API', version: '1.0.0', description: 'Self-hostable email platform' },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'pk_… (track only) or sk_… project key' },
          session: { type: 'apiKey', in: 'cookie', name: 'mailroom_session' },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    // Fills components.schemas with the shared (recursive) schemas the routes' $refs point to.
    transformObject: jsonSchemaTransformObject,
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })

  const redis = ctx.config.redisUrl ? await connectRateLimitStore(ctx.config.redisUrl, ctx.log) : undefined
  if (redis) app.addHook('onClose', async () => void redis.disconnect())
  const failedAuthLimit = createFailedAuthLimit({
    maxPerMinute: ctx.config.failedAuthLimitPerMinute,
    counter: redis ? redisFailureCounter(redis, 'mailroom-failed-auth:') : memoryFailureCounter(),
    log: ctx.log,
  })
  registerAuth(
    app,
    {
      findProjectByKey: batchedKeyLookup(ctx.db, ctx.config.secret),
      findMemberProject: (userId, projectId) => findMemberProject(ctx.db, userId, projectId),
      sessionFromToken: (token) => findSession(ctx.db, ctx.config.secret, token),
      requireEmailVerification: ctx.config.requireEmailVerification,
    },
    failedAuthLimit,
  )
  await registerRateLimit(app, { maxPerMinute: ctx.config.rateLimitPerMinute, redis })

  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger())
  registerHealthRoutes(app, ctx)
  registerMetricsRoute(app, ctx.metrics, { token: ctx.config.metrics.token, open: false })
  registerConfigRoutes(app, ctx)
  registerAuthRoutes(app, ctx)
  registerOAuthRoutes(app, ctx)
  registerUserRoutes(app, ctx)
  registerProjectRoutes(app, ctx)
  await registerBillingRoutes(app, ctx)
  registerMemberRoutes(app, ctx)
  registerSetupStateRoutes(app, ctx)
  registerContactRoutes(app, ctx, (tx, changed) => reevaluateContacts(tx, ctx.log, changed))
  registerEventLogRoutes(app, ctx)
  registerTrackRoutes(app, ctx)
  registerSendRoutes(app, ctx)
  await registerSubscriptionRoutes(app, ctx)
  registerOpenClickRoutes(app, ctx)
  registerDomainRoutes(app, ctx)
  registerVerifyRoutes(app, ctx)
  registerTemplateRoutes(app, ctx)
  registerUploadRoutes(app, ctx)
  registerCampaignRoutes(app, ctx)
  registerCampaignRecipientRoutes(app, ctx)
  registerSegmentRoutes(app, ctx)
  registerWorkflowRoutes(app, ctx)
  registerWorkflowExecutionRoutes(app, ctx)
  registerCapturedMailRoutes(app, ctx)
  registerSuppressionRoutes(app, ctx)
  registerReputationRoutes(app, ctx)
  registerActivityRoutes(app, ctx)
  registerEmailRoutes(app, ctx)
  registerWebhookRoutes(app, ctx)
  registerAnalyticsRoutes(app, ctx)
  registerMcpRoute(app, ctx)
  await registerProviderWebhookRoutes(app, ctx, options.snsTrust ?? amazonSnsTrust)
  await registerDashboard(app)

  return app
}
