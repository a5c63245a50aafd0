import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import {
  activityListQuery,
  activityPage,
  activityPeriodQuery,
  activityStats,
  activityTypeList,
  recentCount,
  recentCountQuery,
  upcomingList,
  upcomingQuery,
} from './schemas.js'
import {
  countRecentActivity,
  getActivityStats,
  listActivity,
  listActivityTypes,
  listUpcomingActivity,
} from './service.js'

export function registerActivityRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['activity']

  app.get(
    '/activity',
    { config, schema: { tags, querystring: activityListQuery, response: { 200: activityPage } } },
    async (request) => listActivity(ctx.db, projectOf(request), request.query),
  )

  app.get(
    '/activity/stats',
    { config, schema: { tags, querystring: activityPeriodQuery, response: { 200: activityStats } } },
    async (request) => getActivityStats(ctx.db, projectOf(request), request.query),
  )

  app.get(
    '/activity/recent-count',
    { config, schema: { tags, querystring: recentCountQuery, response: { 200: recentCount } } },
    async (request) => countRecentActivity(ctx.db, projectOf(request), request.query),
  )

  app.get('/activity/types', { config, schema: { tags, response: { 200: activityTypeList } } }, async (request) =>
    listActivityTypes(ctx.db, projectOf(request)),
  )

  app.get(
    '/activity/upcoming',
    { config, schema: { tags, querystring: upcomingQuery, response: { 200: upcomingList } } },
    async (request) => listUpcomingActivity(ctx.db, projectOf(request), request.query),
  )
}
