import { unsubscribeMailDomain } from '../../config.js'
import type { AppContext } from '../../context.js'
import { listUnsubscribeHeaders } from '../../mail/outbound/list-unsubscribe.js'
import { renderEmail } from '../../mail/outbound/render.js'
import { withSubscriptionUrls } from '../../mail/outbound/subscription-links.js'
import type { NewEmail, NewEmailAttachment } from '../delivery/service.js'
import type { SendContent } from './content.js'
import type { SendBody } from './schemas.js'

export type Recipient = { email: string; name: string | null }

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
  const subject = { projectId, contactId: contact.id }
  const rendered = await renderEmail(
    content,
    withSubscriptionUrls(
      { id: contact.id, email: contact.email, data: requestData },
      ctx.config.publicUrl,
      ctx.config.secret,
      subject,
    ),
  )
  return {
    from: content.from,
    to: { email: contact.email, name: recipient.name },
    replyTo: content.replyTo,
    subject: rendered.subject,
    html: rendered.html,
    headers: content.marketing
      ? {
          ...body.headers,
          ...listUnsubscribeHeaders({
            publicUrl: ctx.config.publicUrl,
            secret: ctx.config.secret,
            subject,
            inboundDomain: unsubscribeMailDomain(ctx.config),
          }),
        }
      : body.headers,
    attachments,
    contactId: contact.id,
    templateId: content.templateId,
    sourceType: 'TRANSACTIONAL',
    marketing: content.marketing,
  }
}
