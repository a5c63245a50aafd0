import { z } from 'zod'
import { campaignCreate, campaignStatusSchema } from '../../modules/campaigns/schemas.js'
import { defineTool, pageArgs, segment } from '../tool.js'

const campaignId = z.uuid().describe('The campaign id (from list_campaigns)')

export const campaignTools = [
  defineTool({
    name: 'list_campaigns',
    title: 'List campaigns',
    description: 'Campaigns newest first with status, audience, schedule and progress; `search` matches the name.',
    kind: 'read',
    input: {
      status: campaignStatusSchema.optional(),
      search: z.string().max(200).optional(),
      ...pageArgs,
    },
    run: (api, query) => api({ method: 'GET', path: '/campaigns', query }),
  }),
  defineTool({
    name: 'get_campaign',
    title: 'Get a campaign',
    description: 'One campaign: content, audience, status, schedule and sending progress.',
    kind: 'read',
    input: { id: campaignId },
    run: (api, { id }) => api({ method: 'GET', path: `/campaigns/${segment(id)}` }),
  }),
  defineTool({
    name: 'create_campaign',
    title: 'Create a campaign',
    description:
      'Creates a campaign as a DRAFT (it sends nothing until send_campaign). `audienceType` is ALL (every ' +
      'subscribed contact), SEGMENT (with `segmentId`) or FILTERED (with `audienceCondition`, the segment ' +
      'condition format). `body` is HTML with Liquid variables.',
    kind: 'write',
    input: campaignCreate.shape,
    run: (api, body) => api({ method: 'POST', path: '/campaigns', body }),
  }),
  defineTool({
    name: 'send_campaign_test',
    title: 'Send a campaign test',
    description:
      'Sends the campaign once to one address (marked as a test), to check it before sending it; the address ' +
      'must be a member of the project.',
    kind: 'write',
    reachesPeople: true,
    input: { id: campaignId, email: z.email().max(254).describe('A project member’s address') },
    run: (api, { id, email }) => api({ method: 'POST', path: `/campaigns/${segment(id)}/test`, body: { email } }),
  }),
  defineTool({
    name: 'send_campaign',
    title: 'Send or schedule a campaign',
    description:
      'Sends a DRAFT campaign to its whole audience now, or at `scheduledFor` (ISO 8601 date-time). This emails ' +
      'real people and cannot be undone once sending starts (cancel_campaign stops what is not yet sent).',
    kind: 'write',
    reachesPeople: true,
    input: {
      id: campaignId,
      scheduledFor: z.iso.datetime({ offset: true }).optional().describe('When to send; omitted sends now'),
    },
    needsConfirmation: ({ scheduledFor }) =>
      scheduledFor ? 'it schedules the campaign for its whole audience' : 'it sends the campaign to its whole audience',
    run: (api, { id, scheduledFor }) =>
      api({ method: 'POST', path: `/campaigns/${segment(id)}/send`, body: { scheduledFor } }),
  }),
  defineTool({
    name: 'cancel_campaign',
    title: 'Cancel a campaign',
    description:
      'Cancels a SCHEDULED campaign (it becomes a DRAFT again), or stops a SENDING one (CANCELLED; emails already ' +
      'sent stay sent).',
    kind: 'write',
    idempotent: true,
    input: { id: campaignId },
    run: (api, { id }) => api({ method: 'POST', path: `/campaigns/${segment(id)}/cancel` }),
  }),
  defineTool({
    name: 'get_campaign_stats',
    title: 'Campaign statistics',
    description: 'A campaign’s counts and rates: sent, delivered, opened, clicked, bounced, complained, unsubscribed.',
    kind: 'read',
    input: { id: campaignId },
    run: (api, { id }) => api({ method: 'GET', path: `/campaigns/${segment(id)}/stats` }),
  }),
]
