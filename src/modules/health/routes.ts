import { sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'

const databaseTimeoutMs = 2_000

async function databaseReachable(ctx: AppContext): Promise<boolean> {
  const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), databaseTimeoutMs).unref())
  const query = ctx.db.execute(sql`SELECT 1`).then(
    () => true,
    () => false,
  )
  return Promise.race([query, timeout])
}

export function registerHealthRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/health',
    { config: { auth: 'none', rateLimit: false }, schema: { tags: ['system'] } },
    async (_request, reply) => {
      const up = await databaseReachable(ctx)
      return reply.code(up ? 200 : 503).send({ status: up ? 'ok' : 'unavailable', database: up ? 'up' : 'down' })
    },
  )
}
