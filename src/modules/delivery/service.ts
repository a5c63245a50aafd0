import type pg from 'pg'
import type { Executor } from '../../db/client.js'
import { emailAttachments, type emails } from '../../db/schema/index.js'
import { newTimeOrderedUuid } from '../../db/time-ordered-uuid.js'
import { wakeAfterCommit } from '../../db/wake.js'
import { domainOf } from '../../mail/address.js'
import { bulkPriority, type InsertEmails, insertEmails, type OutboxWake, outboxChannel } from './sql.js'

type EmailSourceType = (typeof emails.$inferInsert)['sourceType'] & string

export type NewEmailAttachment = {
  filename: string
  contentType: string
  content: Buffer
  /** Required for inline parts, referenced from the HTML as `cid:<contentId>`. */
  contentId?: string | null
  disposition?: 'attachment' | 'inline'
}

/** One rendered email for one recipient, as the send route, campaigns and workflows hand it over. */
export type NewEmail = {
  /** Chosen before rendering when the email's links name it (`newTimeOrderedUuid`); made here otherwise. */
  id?: string
  from: { email: string; name?: string | null }
  to: { email: string; name?: string | null }
  replyTo?: string | null
  subject: string
  /** Final HTML, already rendered for this recipient; the text alternative is derived from it. */
  html: string
  /** Custom headers, already checked for CR/LF and length. */
  headers?: Record<string, string>
  attachments?: readonly NewEmailAttachment[]
  contactId?: string | null
  templateId?: string | null
  campaignId?: string | null
  /** The workflow execution whose SEND_EMAIL step queued it. */
  workflow?: { id: string; executionId: string }
  sourceType?: EmailSourceType
  /**
   * Marketing mail is tracked under the project's `MARKETING_ONLY` mode and is the reputation guard's marketing
   * stream, held while that stream is paused. Defaults to every source but transactional; the send route and
   * workflow steps set it for mail from a MARKETING template.
   */
  marketing?: boolean
  /** Lower goes first; defaults by source type so transactional mail overtakes a campaign backlog. */
  priority?: number
  /**
   * Mail taken over SMTP submission: the stored message it sends as it is (its `html` is then only what the
   * record shows), and that message's own Message-ID (without angle brackets), shared by all its recipients.
   */
  submitted?: { messageId: string; submittedMessageId: string }
}

const defaultPriority: Record<EmailSourceType, number> = {
  TRANSACTIONAL: 0,
  WORKFLOW: 5,
  CAMPAIGN: bulkPriority,
}

// Keeps each statement (and the attachments' 65,535-parameter limit) within bounds for large campaigns.
const rowsPerInsert = 1000

/**
 * Stores emails in the outbox inside the caller's transaction and returns their ids in input order.
 * Nothing is sent before the transaction commits; the commit also wakes idle outbox workers.
 */
export async function enqueueEmails(
  tx: Executor,
  projectId: string,
  input: readonly NewEmail[],
  insert: InsertEmails = insertEmails,
): Promise<string[]> {
  if (input.length === 0) return []
  const rows = input.map((email) => {
    // Time-ordered, so each insert lands on the right edge of the primary key's index, not on random pages of it.
    const id = email.id ?? newTimeOrderedUuid()
    const sourceType = email.sourceType ?? 'TRANSACTIONAL'
    return {
      id,
      projectId,
      contactId: email.contactId ?? null,
      templateId: email.templateId ?? null,
      campaignId: email.campaignId ?? null,
      sourceType,
      priority: email.priority ?? defaultPriority[sourceType],
      marketing: email.marketing ?? sourceType !== 'TRANSACTIONAL',
      fromEmail: email.from.email,
      fromName: email.from.name ?? null,
      replyTo: email.replyTo ?? null,
      toEmail: email.to.email,
      toName: email.to.name ?? null,
      subject: email.subject,
      html: email.html,
      headers: email.headers ?? {},
      messageId: email.submitted?.messageId ?? `${id}@${domainOf(email.from.email)}`,
      submittedMessageId: email.submitted?.submittedMessageId ?? null,
      // Only when set: a campaign's thousands of rows carry no null keys in their JSON.
      ...(email.workflow ? { workflowId: email.workflow.id, workflowExecutionId: email.workflow.executionId } : {}),
    }
  })
  const attachments = input.flatMap((email, index) =>
    (email.attachments ?? []).map((attachment, position) => ({
      emailId: rows[index]?.id ?? '',
      position,
      filename: attachment.filename,
      contentType: attachment.contentType,
      content: attachment.content,
      contentId: attachment.contentId ?? null,
      disposition: attachment.disposition ?? 'attachment',
    })),
  )
  for (let start = 0; start < rows.length; start += rowsPerInsert) {
    await insert(tx, rows.slice(start, start + rowsPerInsert))
  }
  for (let start = 0; start < attachments.length; start += rowsPerInsert) {
    await tx.insert(emailAttachments).values(attachments.slice(start, start + rowsPerInsert))
  }
  return rows.map((row) => row.id)
}

/**
 * Wakes idle outbox workers, this process's at once and the others by NOTIFY (see db/wake.ts): call it after the
 * transaction that enqueued emails has committed, never inside it, where it would cap /v1/send at a few hundred
 * requests per second.
 */
export function wakeOutbox(pool: pg.Pool, kind: OutboxWake = 'urgent'): void {
  wakeAfterCommit(pool, outboxChannel, kind)
}
