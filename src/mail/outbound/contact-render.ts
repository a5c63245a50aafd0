import { type Config, unsubscribeMailDomain } from '../../config.js'
import { type ListUnsubscribeOptions, listUnsubscribeHeaders } from './list-unsubscribe.js'
import { renderEmail } from './render.js'
import { type SubscriptionSubject, withSubscriptionUrls } from './subscription-links.js'

/**
 * An email's subject and body templates to be rendered for one contact: the contact as it is when the email is
 * made, and what its subscription links and List-Unsubscribe headers need. Plain data, so the outbox can hand it to
 * a compose thread.
 */
export type ContactRender = {
  subject: string
  body: string
  contact: { id: string; email: string; data: Record<string, unknown> }
  links: ListUnsubscribeOptions
  /** Marketing and campaign mail carries the one-click unsubscribe headers; transactional mail does not. */
  listUnsubscribe: boolean
}

export type RenderedForContact = { subject: string; html: string; headers: Record<string, string> | undefined }

/** The links of `subject`'s emails under this configuration; the mailto: one only while mail to it reaches us. */
export function contactLinks(config: Config, subject: SubscriptionSubject): ListUnsubscribeOptions {
  return {
    publicUrl: config.publicUrl,
    secret: config.secret,
    subject,
    inboundDomain: unsubscribeMailDomain(config),
  }
}

/**
 * The one rendering of an email for a contact, whoever sends it (/v1/send, a workflow step, a campaign at delivery,
 * a campaign's test): Liquid over the contact's data and its subscription URLs, and the List-Unsubscribe headers
 * when asked for (undefined otherwise). Throws AppError (TEMPLATE_RENDER_ERROR) when the templates cannot be
 * rendered with this contact's data.
 */
export async function renderForContact(job: ContactRender): Promise<RenderedForContact> {
  const { publicUrl, secret, subject } = job.links
  const rendered = await renderEmail(job, withSubscriptionUrls({ ...job.contact }, publicUrl, secret, subject))
  return { ...rendered, headers: job.listUnsubscribe ? listUnsubscribeHeaders(job.links) : undefined }
}
