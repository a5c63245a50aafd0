import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import type { AuthScope } from '../../http/auth.js'
import { projectOf } from '../../http/project.js'
import { wakeEventDispatcher } from '../events/wake.js'
import { idempotencyClaim } from '../idempotency/header.js'
import { trackBody, trackResult } from './schemas.js'
import { trackEvent } from './service.js'

/** `/v1/track` for apps (public or secret key) and `/events/track`, its alias for the dashboard. */
export function registerTrackRoutes(app: App, ctx: AppContext): void {
  // The dashboard alias is a project route: any member may track.
  const routes: { url: string; config: { auth: AuthScope; role?: 'MEMBER' }; tags: string[] }[] = [
    { url: '/v1/track', config: { auth: 'track' }, tags: ['public API'] },
    { url: '/events/track', config: { auth: 'project', role: 'MEMBER' }, tags: ['events'] },
  ]
  for (const { url, config, tags } of routes) {
    app.post(url, { config, schema: { tags, body: trackBody, response: { 200: trackResult } } }, async (request) => {
      const claim = idempotencyClaim(request, ctx.config.idempotencyTtlHours)
      const data = await trackEvent(ctx.db, projectOf(request), request.body, claim)
      // The event is committed: the bus hands it out now (a workflow's trigger) rather than at its next poll.
      wakeEventDispatcher(ctx.pool)
      return { success: true as const, data }
    })
  }
}
