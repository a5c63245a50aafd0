import type { AppContext } from '../../context.js'
import { newTimeOrderedUuid } from '../../db/time-ordered-uuid.js'
import { contactLinks, renderForContact } from '../../mail/outbound/contact-render.js'
import type { NewEmail, NewEmailAttachment } from '../delivery/service.js'
import type { SendContent } from './content.js'
import type { SendBody } from './schemas.js'

type Recipient = { email: string; name: string | null }

/** What one recipient's email is made of, the same on the single and the group-commit path. */
export type RecipientEmail = {
  projectId: string
  body: SendBody
  content: SendContent
  attachments: readonly NewEmailAttachment[] | undefined
  recipient: Recipient
}

/** Renders one recipient's email for its upserted contact (`requestData`: stored plus this request's data). */
export async function composeEmail(
  ctx: AppContext,
  { projectId, body, content, attachments, recipient }: RecipientEmail,
  contact: { id: string; email: string },
  requestData: Record<string, unknown>,
): Promise<NewEmail> {
  // Chosen now so that its subscription links can name it (the outbox stores it under this id).
  const id = newTimeOrderedUuid()
  const rendered = await renderForContact({
    subject: content.subject,
    body: content.body,
    contact: { id: contact.id, email: contact.email, data: requestData },
    links: contactLinks(ctx.config, { projectId, contactId: contact.id, emailId: id }),
    listUnsubscribe: content.marketing,
  })
  return {
    id,
    from: content.from,
    to: { email: contact.email, name: recipient.name },
    replyTo: content.replyTo,
    subject: rendered.subject,
    html: rendered.html,
    headers: rendered.headers ? { ...body.headers, ...rendered.headers } : body.headers,
    attachments,
    contactId: contact.id,
    templateId: content.templateId,
    sourceType: 'TRANSACTIONAL',
    marketing: content.marketing,
  }
}
