import type { EventInput } from '../events/bus.js'
import type { SentRow } from './sql.js'

/** The spec's `email.sent` event: the base email fields plus `sentAt`, on the recipient contact. */
export function emailSentEvent(email: SentRow): EventInput {
  return {
    projectId: email.projectId,
    contactId: email.contactId,
    name: 'email.sent',
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
