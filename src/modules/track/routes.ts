import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { idempotencyClaim } from '../idempotency/header.js'
import { trackBody, trackResult } from './schemas.js'
import { trackEvent } from './service.js'

export function registerTrackRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/track',
    { config: { auth: 'track' }, schema: { tags: ['public API'], body: trackBody, response: { 200: trackResult } } },
    async (request) => {
      const claim = idempotencyClaim(request, ctx.config.idempotencyTtlHours)
      return { success: true as const, data: await trackEvent(ctx.db, projectOf(request), request.body, claim) }
    },
  )
}
