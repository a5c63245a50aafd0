import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { emailEvents } from '../../db/schema/index.js'
import type { SentRow } from './sql.js'

export type EmailEvent = {
  projectId: string
  emailId: string
  type: 'email.sent'
  data: Record<string, unknown>
}

/**
 * The one way email events leave this module. Until the event log of the contacts branch is merged it
 * writes `email_events`; afterwards only this function changes (event bus, workflow triggers).
 */
export async function emitEmailEvents(db: Executor, events: EmailEvent[]): Promise<void> {
  if (events.length === 0) return
  // One JSON parameter: the outbox writes these in batches on its hot path.
  await db.execute(sql`
    INSERT INTO ${emailEvents} (email_id, project_id, type, data)
    SELECT v."emailId", v."projectId", v.type, v.data
    FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS v("emailId" uuid, "projectId" uuid, type text, data jsonb)`)
}

/** The spec's `email.sent` payload: the base email fields plus `sentAt`. */
export function emailSentEvent(email: SentRow): EmailEvent {
  return {
    projectId: email.projectId,
    emailId: email.id,
    type: 'email.sent',
    data: {
      subject: email.subject,
      from: email.fromEmail,
      fromName: email.fromName ?? '',
      messageId: email.providerMessageId ?? email.messageId,
      emailId: email.id,
      templateId: email.templateId,
      campaignId: email.campaignId,
      sourceType: email.sourceType,
      sentAt: email.sentAt.toISOString(),
    },
  }
}
