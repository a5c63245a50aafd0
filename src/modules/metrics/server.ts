import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { AppContext } from '../../context.js'
import { registerErrorHandlers } from '../../http/errors.js'
import { registerHealthRoutes } from '../health/routes.js'
import { registerMetricsRoute } from './routes.js'

export type MetricsServer = {
  /** The port it listens on (the configured one, or the one picked for port 0). */
  port: number
  close(): Promise<void>
}

/**
 * The listener of METRICS_PORT: `/metrics`, `/health` and `/health/ready` of this process, in any role, the
 * worker included (which has no API port). Bound to METRICS_HOST (loopback by default) so that, without a
 * METRICS_TOKEN, only the host itself can scrape it; with one, the token is asked for here too.
 */
export async function startMetricsServer(ctx: AppContext, port: number): Promise<MetricsServer> {
  const loggerInstance: FastifyBaseLogger = ctx.log
  const app = Fastify({
    loggerInstance,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
  }).withTypeProvider<ZodTypeProvider>()
  registerErrorHandlers(app)
  registerHealthRoutes(app, ctx)
  registerMetricsRoute(app, ctx.metrics, { token: ctx.config.metrics.token, open: true })
  await app.listen({ port, host: ctx.config.metrics.host })
  const address = app.server.address()
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => app.close(),
  }
}
