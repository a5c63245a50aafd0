import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import {
  suppressionCreate,
  suppressionListQuery,
  suppressionPage,
  suppressionParams,
  suppressionView,
} from './schemas.js'
import { addSuppression, liftSuppression, listSuppressions } from './service.js'

/** The project's suppression list: addresses that bounced permanently or complained, which no mail reaches. */
export function registerSuppressionRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['suppressions']

  app.get(
    '/suppressions',
    { config, schema: { tags, querystring: suppressionListQuery, response: { 200: suppressionPage } } },
    async (request) => listSuppressions(ctx.db, projectOf(request), request.query),
  )

  // Stops mail to an address: a member's call, as sending is (lifting is the admin's).
  app.post(
    '/suppressions',
    { config, schema: { tags, body: suppressionCreate, response: { 201: suppressionView } } },
    async (request, reply) => reply.code(201).send(await addSuppression(ctx.db, projectOf(request), request.body)),
  )

  app.delete(
    '/suppressions/:email',
    // Lifting a suppression lets mail reach an address that bounced or complained: an admin's call.
    { config: { ...config, role: 'ADMIN' }, schema: { tags, params: suppressionParams } },
    async (request, reply) => {
      await liftSuppression(ctx.db, projectOf(request), request.params.email)
      return reply.code(204).send()
    },
  )
}
