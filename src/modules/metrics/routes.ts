import type { FastifyInstance } from 'fastify'
import type { Metrics } from './registry.js'
import { assertMetricsToken } from './token.js'

/** Requests that matched no route share one label, so scanners cannot grow the label set. */
const unmatchedRoute = 'unmatched'

/** Observes every answer of `app` by its route pattern; synchronous, so it adds no promise per request. */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? unmatchedRoute,
      reply.statusCode,
      reply.elapsedTime / 1_000,
    )
    done()
  })
}

/**
 * `GET /metrics` in Prometheus text format. `token` undefined refuses every scrape (the API port without
 * METRICS_TOKEN); the separate metrics listener passes the token only when one is set.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: Metrics,
  access: { token: string | undefined; open: boolean },
): void {
  app.get('/metrics', { config: { auth: 'none' }, schema: { tags: ['system'] } }, async (request, reply) => {
    if (!access.open || access.token !== undefined) assertMetricsToken(request, access.token)
    const text = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).send(text)
  })
}
