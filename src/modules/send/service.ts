import type { AppContext } from '../../context.js'
import { type AuthProject, assertStreamSending } from '../../http/auth.js'
import { wakeOutbox } from '../delivery/service.js'
import { assertSenderAllowedBatched } from '../domains/service.js'
import type { IdempotencyClaim } from '../idempotency/service.js'
import { acceptEmails } from './accept.js'
import { decodeAttachments } from './attachments.js'
import { sendBatcherOf } from './batch.js'
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
 * emails are stored in the outbox in the same transaction, so a 200 means they will be sent (accept.ts; the
 * common one-recipient call shares that transaction with concurrent ones through batch.ts).
 */
export async function sendTransactional(
  ctx: AppContext,
  project: Pick<AuthProject, 'id' | 'sendingPausedReason' | 'marketingPausedReason'>,
  body: SendBody,
  claim: IdempotencyClaim | undefined,
): Promise<SendResult> {
  const projectId = project.id
  const content = await resolveSendContent(ctx.db, projectId, body)
  // Mail of a MARKETING template is the marketing stream: refused while the guard holds it, like a campaign.
  if (content.marketing) assertStreamSending(project, 'marketing')
  await assertSenderAllowedBatched(ctx.db, ctx.config, projectId, content.from.email)
  const attachments = decodeAttachments(
    body.attachments,
    Buffer.byteLength(content.body),
    ctx.config.attachmentsMaxBytes,
  )
  const recipients = recipientsOf(body.to).map((recipient) => ({ projectId, body, content, attachments, recipient }))

  const [only] = recipients
  // The common call (one recipient, no Idempotency-Key, no explicit subscription) joins a group commit.
  if (only && recipients.length === 1 && !claim && body.subscribed === undefined) {
    const accepted = await sendBatcherOf(ctx)(only)
    ctx.metrics.emails.accepted(1)
    return { emails: [accepted], timestamp: new Date().toISOString() }
  }
  const emails = await acceptEmails(ctx, recipients, claim && { projectId, claim })
  ctx.metrics.emails.accepted(emails.length)
  wakeOutbox(ctx.pool)
  return { emails, timestamp: new Date().toISOString() }
}
