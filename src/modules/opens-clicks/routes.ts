import type { FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import type { HitRequest } from '../feedback/machine-hits.js'
import { invalidLinkPage } from '../subscriptions/pages.js'
import { followClick, recordOpen } from './service.js'

// The smallest transparent GIF (1×1, 43 bytes).
const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')

// Every open and click must reach us, not a cache on the way.
const noCache = {
  'cache-control': 'no-store, no-cache, must-revalidate, private, max-age=0',
  pragma: 'no-cache',
  expires: '0',
}

// A wildcard rather than `:token`: click tokens carry the whole link and can exceed the router's param limit.
const tokenParams = z.object({ '*': z.string() })

/** What feedback/machine-hits.ts classifies a hit by. HEAD requests (link checkers) get the same answer and count as machines. */
const hitOf = (request: FastifyRequest): HitRequest => ({
  method: request.method,
  userAgent: request.headers['user-agent'] ?? null,
  ip: request.ip,
})

/**
 * The open pixel and click redirect behind `PUBLIC_URL`. No auth: the signed token is the credential, and
 * tokens are global (the email they name decides the project). Rate limited per tracking URL rather than per
 * address, because image proxies (Gmail) and link scanners fetch for many recipients from a few addresses.
 */
export function registerOpenClickRoutes(app: App, ctx: AppContext): void {
  const tracking = { db: ctx.db, pool: ctx.pool, log: ctx.log, secret: ctx.config.secret }
  const config = {
    auth: 'none' as const,
    // Without the query string, which would otherwise make a fresh key per request.
    rateLimit: {
      max: 120,
      timeWindow: 60_000,
      keyGenerator: (request: FastifyRequest) => `track:${request.url.split('?')[0]}`,
    },
  }
  const schema = { hide: true, params: tokenParams }

  app.get('/t/open/*', { config, schema }, async (request, reply) => {
    await recordOpen(tracking, request.params['*'], hitOf(request))
    return reply.code(200).headers(noCache).type('image/gif').send(pixel)
  })

  app.get('/t/click/*', { config, schema }, async (request, reply) => {
    const click = await followClick(tracking, request.params['*'], hitOf(request))
    if (!click) return reply.code(404).headers(noCache).type('text/html; charset=utf-8').send(invalidLinkPage())
    return reply.headers({ ...noCache, 'referrer-policy': 'no-referrer' }).redirect(click.location, 302)
  })
}
