import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { actorOf, projectOf } from '../../http/project.js'
import { countCampaignAudience } from './audience-count.js'
import { cancelCampaign } from './cancel.js'
import { registerPresendRoutes } from './presend/routes.js'
import {
  audienceCount,
  audienceCountBody,
  campaignCreate,
  campaignEnvelope,
  campaignIdParams,
  campaignListQuery,
  campaignPage,
  campaignSendBody,
  campaignStats,
  campaignTestBody,
  campaignTimeseries,
  campaignTimeseriesQuery,
  campaignUpdate,
  successMessage,
} from './schemas.js'
import { sendCampaign } from './send.js'
import {
  createCampaign,
  deleteCampaign,
  duplicateCampaign,
  getCampaign,
  listCampaigns,
  updateCampaign,
} from './service.js'
import { getCampaignStats } from './stats.js'
import { sendCampaignTest } from './test-send.js'
import { getCampaignTimeseries } from './timeseries.js'

const wrapped = <Data>(data: Data, message?: string) => ({
  success: true as const,
  data,
  ...(message ? { message } : {}),
})
const done = (message: string) => ({ success: true as const, message })

/** Single-campaign answers use Plunk's `{success, data}` envelope (plunk-compat.md §1.2); the list does not. */
export function registerCampaignRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'project' as const, role: 'MEMBER' as const } }
  // Sending now or later, and test sends: a disabled project is refused.
  const sending = { config: { ...route.config, sending: true } }
  // Sending now or later is the marketing stream: refused while the reputation guard holds it. A test send goes to
  // a member as transactional mail, so an owner can check a fix (it waits only while all sending is paused).
  const startsMarketing = { config: { ...sending.config, refusedWhilePaused: 'marketing' as const } }
  const tags = ['campaigns']
  const params = campaignIdParams

  app.get(
    '/campaigns',
    { ...route, schema: { tags, querystring: campaignListQuery, response: { 200: campaignPage } } },
    async (request) => listCampaigns(ctx.db, projectOf(request), request.query),
  )

  app.post(
    '/campaigns',
    { ...route, schema: { tags, body: campaignCreate, response: { 201: campaignEnvelope } } },
    async (request, reply) =>
      reply.code(201).send(wrapped(await createCampaign(ctx.db, ctx.config, projectOf(request), request.body))),
  )

  app.post(
    '/campaigns/audience/count',
    { ...route, schema: { tags, body: audienceCountBody, response: { 200: audienceCount } } },
    async (request) => countCampaignAudience(ctx.db, projectOf(request), request.body),
  )

  app.get(
    '/campaigns/:id',
    { ...route, schema: { tags, params, response: { 200: campaignEnvelope } } },
    async (request) => wrapped(await getCampaign(ctx.db, projectOf(request), request.params.id)),
  )

  app.put(
    '/campaigns/:id',
    { ...route, schema: { tags, params, body: campaignUpdate, response: { 200: campaignEnvelope } } },
    async (request) =>
      wrapped(await updateCampaign(ctx.db, ctx.config, projectOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/campaigns/:id',
    { ...route, schema: { tags, params, response: { 200: successMessage } } },
    async (request) => {
      await deleteCampaign(ctx.db, projectOf(request), request.params.id)
      return done('Campaign deleted successfully')
    },
  )

  app.post(
    '/campaigns/:id/duplicate',
    { ...route, schema: { tags, params, response: { 201: campaignEnvelope } } },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          wrapped(
            await duplicateCampaign(ctx.db, projectOf(request), request.params.id),
            'Campaign duplicated successfully',
          ),
        ),
  )

  app.post(
    '/campaigns/:id/send',
    { ...startsMarketing, schema: { tags, params, body: campaignSendBody, response: { 200: campaignEnvelope } } },
    async (request) => {
      const projectId = projectOf(request)
      const { message } = await sendCampaign(ctx, projectId, request.params.id, request.body?.scheduledFor, {
        force: request.body?.force === true,
        actor: actorOf(request),
      })
      return wrapped(await getCampaign(ctx.db, projectId, request.params.id), message)
    },
  )

  app.post(
    '/campaigns/:id/cancel',
    { ...route, schema: { tags, params, response: { 200: campaignEnvelope } } },
    async (request) => {
      const projectId = projectOf(request)
      await cancelCampaign(ctx, projectId, request.params.id)
      return wrapped(await getCampaign(ctx.db, projectId, request.params.id), 'Campaign cancelled successfully')
    },
  )

  app.post(
    '/campaigns/:id/test',
    { ...sending, schema: { tags, params, body: campaignTestBody, response: { 200: successMessage } } },
    async (request) => {
      const email = await sendCampaignTest(ctx, projectOf(request), request.params.id, request.body.email)
      return done(`Test email sent to ${email}`)
    },
  )

  app.get(
    '/campaigns/:id/stats',
    { ...route, schema: { tags, params, response: { 200: campaignStats } } },
    async (request) => getCampaignStats(ctx.db, projectOf(request), request.params.id),
  )

  registerPresendRoutes(app, ctx)

  app.get(
    '/campaigns/:id/timeseries',
    { ...route, schema: { tags, params, querystring: campaignTimeseriesQuery, response: { 200: campaignTimeseries } } },
    async (request) => getCampaignTimeseries(ctx.db, projectOf(request), request.params.id, request.query),
  )
}
