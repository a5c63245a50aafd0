import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { listCampaignRecipients } from './recipients.js'
import { streamCampaignRecipientsCsv } from './recipients-csv.js'
import { campaignIdParams, recipientCsvQuery, recipientListQuery, recipientPage } from './schemas.js'

/** A campaign's recipients by state: a page at a time, or all of them as a streamed CSV file. */
export function registerCampaignRecipientRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['campaigns']
  const params = campaignIdParams

  app.get(
    '/campaigns/:id/recipients',
    { config, schema: { tags, params, querystring: recipientListQuery, response: { 200: recipientPage } } },
    async (request) => listCampaignRecipients(ctx.db, projectOf(request), request.params.id, request.query),
  )

  app.get(
    '/campaigns/:id/recipients.csv',
    { config, schema: { tags, params, querystring: recipientCsvQuery } },
    async (request, reply) => {
      const { id } = request.params
      const csv = await streamCampaignRecipientsCsv(ctx.db, projectOf(request), id, request.query.state)
      const name = `campaign-${id}-${request.query.state ?? 'all'}-recipients.csv`
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(csv)
    },
  )
}
