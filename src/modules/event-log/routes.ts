import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { eventListQuery, eventNameList, eventNameParams, eventPage, eventStats, eventUsage } from './schemas.js'
import { deleteEventsByName, findEventUsage, getEventStats, listEventNames, listEvents } from './service.js'

export function registerEventLogRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['events']

  app.get(
    '/events',
    { config, schema: { tags, querystring: eventListQuery, response: { 200: eventPage } } },
    async (request) => listEvents(ctx.db, projectOf(request), request.query),
  )

  app.get('/events/stats', { config, schema: { tags, response: { 200: eventStats } } }, async (request) =>
    getEventStats(ctx.db, projectOf(request)),
  )

  app.get('/events/names', { config, schema: { tags, response: { 200: eventNameList } } }, async (request) =>
    listEventNames(ctx.db, projectOf(request)),
  )

  app.get(
    '/events/:eventName/usage',
    { config, schema: { tags, params: eventNameParams, response: { 200: eventUsage } } },
    async (request) => findEventUsage(ctx.db, projectOf(request), request.params.eventName),
  )

  app.delete(
    '/events/:eventName',
    { config: { ...config, role: 'ADMIN' }, schema: { tags, params: eventNameParams } },
    async (request) => deleteEventsByName(ctx.db, projectOf(request), request.params.eventName),
  )
}
