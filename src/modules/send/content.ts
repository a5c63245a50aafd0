import type { Executor } from '../../db/client.js'
import { AppError } from '../../errors.js'
import { getTemplate } from '../templates/service.js'
import type { SendBody } from './schemas.js'

export type SendContent = {
  subject: string
  body: string
  from: { email: string; name: string | null }
  replyTo: string | null
  templateId: string | null
  /** Marketing mail carries the one-click unsubscribe headers (RFC 8058). */
  marketing: boolean
}

function senderOf(body: SendBody, template?: { from: string; fromName?: string | null }) {
  if (typeof body.from === 'object') return { email: body.from.email, name: body.from.name ?? null }
  // `name` is deprecated: it names the sender only when `from` is a plain address.
  if (typeof body.from === 'string') return { email: body.from, name: body.name ?? template?.fromName ?? null }
  if (template) return { email: template.from, name: body.name ?? template.fromName ?? null }
  throw new AppError('VALIDATION_ERROR', 'Request validation failed', {
    errors: [
      {
        field: 'from',
        code: 'invalid_type',
        message: 'from is required when the template has none',
        received: 'undefined',
      },
    ],
  })
}

/** What to send: the template's subject, body, sender and reply-to, each overridden by the request's own. */
export async function resolveSendContent(db: Executor, projectId: string, body: SendBody): Promise<SendContent> {
  const template = body.template ? await getTemplate(db, projectId, body.template) : undefined
  const subject = body.subject ?? template?.subject
  const html = body.body ?? template?.body
  if (subject === undefined || html === undefined) {
    throw new AppError('VALIDATION_ERROR', 'Request validation failed', {
      errors: [{ field: 'subject', code: 'invalid_type', message: 'subject and body are required without a template' }],
    })
  }
  return {
    subject,
    body: html,
    from: senderOf(body, template),
    replyTo: body.reply ?? template?.replyTo ?? null,
    templateId: template?.id ?? null,
    marketing: template?.type === 'MARKETING',
  }
}
