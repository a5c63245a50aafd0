import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import {
  campaignStats,
  campaignStatsQuery,
  timeseries,
  timeseriesQuery,
  topCampaigns,
  topCampaignsQuery,
  topEvents,
  topEventsQuery,
} from './schemas.js'
import { getCampaignStats, getTimeseries, getTopCampaigns, getTopEvents } from './service.js'

export function registerAnalyticsRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['analytics']

  app.get(
    '/analytics/timeseries',
    { config, schema: { tags, querystring: timeseriesQuery, response: { 200: timeseries } } },
    async (request) => getTimeseries(ctx.db, projectOf(request), request.query),
  )

  app.get(
    '/analytics/top-campaigns',
    { config, schema: { tags, querystring: topCampaignsQuery, response: { 200: topCampaigns } } },
    async (request) => getTopCampaigns(ctx.db, projectOf(request), request.query),
  )

  app.get(
    '/analytics/campaign-stats',
    { config, schema: { tags, querystring: campaignStatsQuery, response: { 200: campaignStats } } },
    async (request) => getCampaignStats(ctx.db, projectOf(request), request.query),
  )

  app.get(
    '/analytics/top-events',
    { config, schema: { tags, querystring: topEventsQuery, response: { 200: topEvents } } },
    async (request) => getTopEvents(ctx.db, projectOf(request), request.query),
  )
}
