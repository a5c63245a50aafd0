import type { AppContext } from '../../context.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { idempotencyClaim } from '../idempotency/header.js'
import { trackContactEvent } from './contact-event.js'
import { dashboardTrackBody, isContactEvent, trackBody, trackResult } from './schemas.js'
import { type TrackResult, trackEvent } from './service.js'

/**
 * `/v1/track` for apps (public or secret key) and `/events/track`, its alias for the dashboard, which also takes
 * Plunk's `{name, contactId}` shape (its MCP's way with a secret key). Both answer as `/v1/track` does.
 */
export function registerTrackRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/track',
    { config: { auth: 'track' }, schema: { tags: ['public API'], body: trackBody, response: { 200: trackResult } } },
    async (request) => {
      const claim = idempotencyClaim(request, ctx.config.idempotencyTtlHours)
      return tracked(await trackEvent(ctx.db, projectOf(request), request.body, claim))
    },
  )

  // A project route: any member may track.
  app.post(
    '/events/track',
    {
      config: { auth: 'project', role: 'MEMBER' },
      schema: { tags: ['events'], body: dashboardTrackBody, response: { 200: trackResult } },
    },
    async (request) => {
      const claim = idempotencyClaim(request, ctx.config.idempotencyTtlHours)
      const body = request.body
      const projectId = projectOf(request)
      return tracked(
        isContactEvent(body)
          ? await trackContactEvent(ctx.db, projectId, body, claim)
          : await trackEvent(ctx.db, projectId, body, claim),
      )
    },
  )

  function tracked(data: TrackResult) {
    // The event is committed: the bus hands it out now (a workflow's trigger) rather than at its next poll.
    wakeEventDispatcher(ctx.pool)
    return { success: true as const, data }
  }
}
