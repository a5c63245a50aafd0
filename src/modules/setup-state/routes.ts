import { z } from 'zod'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectIdParams, projectOf } from '../../http/project.js'
import { getSetupState, setupStateView } from './service.js'

export function registerSetupStateRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/projects/:id/setup-state',
    {
      config: { auth: 'project', role: 'MEMBER', projectParam: 'id' },
      schema: {
        tags: ['projects'],
        params: projectIdParams,
        response: { 200: z.object({ success: z.literal(true), data: setupStateView }) },
      },
    },
    async (request) => ({ success: true as const, data: await getSetupState(ctx.db, projectOf(request)) }),
  )
}
