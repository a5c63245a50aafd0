import type { AppContext } from '../../../context.js'
import type { App } from '../../../http/app-type.js'
import { projectOf } from '../../../http/project.js'
import { templateIdParams } from '../../templates/schemas.js'
import { campaignIdParams } from '../schemas.js'
import { campaignCheck, templateCheck } from './schemas.js'
import { getCampaignCheck, getTemplateCheck } from './service.js'

/**
 * The pre-send check on demand. Templates' route lives here rather than in the templates module, which the
 * campaigns module imports: the other way round would be a cycle. Save answers keep the spec's Template shape.
 */
export function registerPresendRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'project' as const, role: 'MEMBER' as const } }

  app.get(
    '/campaigns/:id/check',
    { ...route, schema: { tags: ['campaigns'], params: campaignIdParams, response: { 200: campaignCheck } } },
    async (request) => getCampaignCheck(ctx.db, ctx.config, projectOf(request), request.params.id),
  )

  app.get(
    '/templates/:id/check',
    { ...route, schema: { tags: ['templates'], params: templateIdParams, response: { 200: templateCheck } } },
    async (request) => getTemplateCheck(ctx.db, ctx.config, projectOf(request), request.params.id),
  )
}
