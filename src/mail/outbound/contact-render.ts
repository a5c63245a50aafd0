import { type ListUnsubscribeOptions, listUnsubscribeHeaders } from './list-unsubscribe.js'
import { renderEmail } from './render.js'
import { withSubscriptionUrls } from './subscription-links.js'

/**
 * A campaign's content to be rendered for one contact on a compose thread: its subject and body templates, the
 * contact as it is when the email is sent, and what its subscription links and List-Unsubscribe headers need.
 */
export type ContactRender = {
  subject: string
  body: string
  contact: { id: string; email: string; data: Record<string, unknown> }
  links: ListUnsubscribeOptions
}

export type RenderedForContact = { subject: string; html: string; headers: Record<string, string> }

/** Throws AppError (TEMPLATE_RENDER_ERROR) when the templates cannot be rendered with this contact's data. */
export async function renderForContact(job: ContactRender): Promise<RenderedForContact> {
  const { publicUrl, secret, subject } = job.links
  const rendered = await renderEmail(job, withSubscriptionUrls({ ...job.contact }, publicUrl, secret, subject))
  return { ...rendered, headers: listUnsubscribeHeaders(job.links) }
}
