import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { createResolver } from '../../mail/dns.js'
import { verifyRequest, verifyResponse } from './schemas.js'
import { verifyEmail } from './service.js'

export function registerVerifyRoutes(app: App, ctx: AppContext): void {
  // One resolver per process: its short cache spares the DNS servers when a list is verified address by address.
  const resolver = createResolver(ctx.config)

  app.post(
    '/v1/verify',
    {
      config: { auth: 'secret' },
      schema: { tags: ['verify'], body: verifyRequest, response: { 200: verifyResponse } },
    },
    async (request) => ({ success: true as const, data: await verifyEmail(resolver, request.body.email) }),
  )
}
