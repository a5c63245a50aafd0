import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { emailIdParams, emailListQuery, emailPage, emailTimeline } from './schemas.js'
import { getEmailTimeline, listEmails } from './service.js'

/** One email's story, and the project's emails: for the person on call ("I never got the password reset"). */
export function registerEmailRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['emails']

  app.get(
    '/emails',
    { config, schema: { tags, querystring: emailListQuery, response: { 200: emailPage } } },
    async (request) => listEmails(ctx.db, projectOf(request), request.query),
  )

  app.get(
    '/emails/:id',
    { config, schema: { tags, params: emailIdParams, response: { 200: emailTimeline } } },
    async (request) => getEmailTimeline(ctx.db, projectOf(request), request.params.id),
  )
}
