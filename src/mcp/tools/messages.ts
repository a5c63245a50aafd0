import { sendBody } from '../../modules/send/schemas.js'
import { trackBody } from '../../modules/track/schemas.js'
import { defineTool } from '../tool.js'

export const messageTools = [
  defineTool({
    name: 'send_email',
    title: 'Send a transactional email',
    description:
      'Sends one email to each recipient in `to` (an address, {name, email}, or a list of up to 100): a stored ' +
      '`template` (its id; `data` fills its variables) or an inline `subject` and `body` (HTML; Liquid variables ' +
      'such as {{ data.firstName }} work). Creates contacts for new recipients (unsubscribed unless `subscribed` is ' +
      'given). Answers each email id; the mail is queued durably and delivered in the background.',
    kind: 'write',
    reachesPeople: true,
    input: sendBody.shape,
    needsConfirmation: ({ to }, { confirmRecipientsAbove }) => {
      const recipients = Array.isArray(to) ? to.length : 1
      return recipients > confirmRecipientsAbove
        ? `it sends to ${recipients} recipients (more than ${confirmRecipientsAbove})`
        : undefined
    },
    run: (api, body) => api({ method: 'POST', path: '/v1/send', body }),
  }),
  defineTool({
    name: 'track_event',
    title: 'Track an event',
    description:
      'Records an event (such as "signed-up" or "purchase") for the contact with this email, creating the contact ' +
      'if it is new (subscribed unless `subscribed` is false); `data` is merged into its custom data. Workflows ' +
      'triggered by the event start for the contact.',
    kind: 'write',
    input: trackBody.shape,
    run: (api, body) => api({ method: 'POST', path: '/v1/track', body }),
  }),
]
