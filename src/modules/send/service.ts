import { unsubscribeMailDomain } from '../../config.js'
import type { AppContext } from '../../context.js'
import { listUnsubscribeHeaders } from '../../mail/list-unsubscribe.js'
import { renderEmail } from '../../mail/render.js'
import { subscriptionUrls } from '../../mail/subscription-links.js'
import { upsertContact } from '../contacts/service.js'
import { enqueueEmails, type NewEmail, wakeOutbox } from '../delivery/service.js'
import { assertSenderAllowed } from '../domains/service.js'
import { failSuppressedEmails } from '../feedback/suppressions.js'
import type { IdempotencyClaim } from '../idempotency/service.js'
import { claimIdempotencyKey } from '../idempotency/service.js'
import { decodeAttachments } from './attachments.js'
import { resolveSendContent } from './content.js'
import type { SendBody, SendResult } from './schemas.js'

function recipientsOf(to: SendBody['to']): { email: string; name: string | null }[] {
  return (Array.isArray(to) ? to : [to]).map((recipient) =>
    typeof recipient === 'string'
      ? { email: recipient, name: null }
      : { email: recipient.email, name: recipient.name ?? null },
  )
}

/**
 * `POST /v1/send`: every recipient gets its own contact upsert and its own rendered email, in order, and the
 * emails are stored in the outbox in the same transaction, so a 200 means they will be sent.
 */
export async function sendTransactional(
  ctx: AppContext,
  projectId: string,
  body: SendBody,
  claim: IdempotencyClaim | undefined,
): Promise<SendResult> {
  const content = await resolveSendContent(ctx.db, projectId, body)
  await assertSenderAllowed(ctx.db, ctx.config, projectId, content.from.email)
  const attachments = decodeAttachments(
    body.attachments,
    Buffer.byteLength(content.body),
    ctx.config.attachmentsMaxBytes,
  )
  const recipients = recipientsOf(body.to)

  const result = await ctx.db.transaction(async (tx) => {
    if (claim) await claimIdempotencyKey(tx, projectId, claim)
    const contacts: { id: string; email: string }[] = []
    const emails: NewEmail[] = []
    for (const recipient of recipients) {
      const { contact, requestData } = await upsertContact(
        tx,
        projectId,
        { email: recipient.email, subscribed: body.subscribed, data: body.data },
        { subscribedIfNew: false },
      )
      const subject = { projectId, contactId: contact.id }
      const rendered = await renderEmail(content, {
        id: contact.id,
        email: contact.email,
        data: requestData,
        ...subscriptionUrls(ctx.config.publicUrl, ctx.config.secret, subject),
      })
      contacts.push({ id: contact.id, email: contact.email })
      emails.push({
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
      })
    }
    const emailIds = await enqueueEmails(tx, projectId, emails)
    // A bounced or complained address gets no mail: its email is stored FAILED with the reason.
    await failSuppressedEmails(tx, emailIds)
    return {
      emails: contacts.map((contact, index) => ({ contact, email: emailIds[index] ?? '' })),
      timestamp: new Date().toISOString(),
    }
  })
  wakeOutbox(ctx.pool)
  return result
}
