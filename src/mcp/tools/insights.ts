import { z } from 'zod'
import { activityTypes } from '../../modules/activity/types.js'
import type { ApiAnswer } from '../api.js'
import { cursorArgs, defineTool } from '../tool.js'

const dateTime = z.iso.datetime({ offset: true })

export const insightTools = [
  defineTool({
    name: 'list_activity',
    title: 'Recent activity',
    description:
      'The project’s activity newest first: emails sent, delivered, opened, clicked, bounced and complained, ' +
      'tracked events, subscription changes, workflow runs, inbound mail. Filter by types, contact and time.',
    kind: 'read',
    input: {
      types: z.array(z.enum(activityTypes)).min(1).optional().describe('Only these activity types'),
      contactId: z.uuid().optional(),
      startDate: dateTime.optional(),
      endDate: dateTime.optional(),
      ...cursorArgs,
    },
    run: (api, { types, ...query }) =>
      api({ method: 'GET', path: '/activity', query: { ...query, types: types?.join(',') } }),
  }),
  defineTool({
    name: 'get_analytics',
    title: 'Sending analytics',
    description:
      'Sent, delivered, opened, clicked, bounced and complained emails over time (by hour or day), with the top ' +
      'campaigns and the most frequent events, for a period (the last 30 days unless given).',
    kind: 'read',
    input: { from: dateTime.optional(), to: dateTime.optional(), granularity: z.enum(['hour', 'day']).optional() },
    run: async (api, { from, to, granularity }) => {
      const [timeseries, topCampaigns, topEvents] = await Promise.all([
        api({ method: 'GET', path: '/analytics/timeseries', query: { from, to, granularity } }),
        api({ method: 'GET', path: '/analytics/top-campaigns' }),
        api({ method: 'GET', path: '/analytics/top-events', query: { from, to } }),
      ])
      const failed = [timeseries, topCampaigns, topEvents].find((answer) => answer.status !== 200)
      if (failed) return failed
      const body = { timeseries: timeseries.body, topCampaigns: topCampaigns.body, topEvents: topEvents.body }
      return { status: 200, body } satisfies ApiAnswer
    },
  }),
]
