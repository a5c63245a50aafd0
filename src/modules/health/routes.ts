import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { checkReadiness, databaseReachable } from './service.js'

export function registerHealthRoutes(app: App, ctx: Pick<AppContext, 'db' | 'pool'>): void {
  app.get(
    '/health',
    { config: { auth: 'none', rateLimit: false }, schema: { tags: ['system'] } },
    async (_request, reply) => {
      const up = await databaseReachable(ctx.db)
      return reply.code(up ? 200 : 503).send({ status: up ? 'ok' : 'unavailable', database: up ? 'up' : 'down' })
    },
  )
  app.get(
    '/health/ready',
    { config: { auth: 'none', rateLimit: false }, schema: { tags: ['system'] } },
    async (_request, reply) => {
      const { ready, database, migrations } = await checkReadiness(ctx.pool)
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', database, migrations })
    },
  )
}
