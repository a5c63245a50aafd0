import type { emails } from '../../db/schema/index.js'
import type { EventInput } from '../../events/bus.js'

/** The email fields every `email.*` event carries (spec: "Base fields on every email event"). */
export type EmailEventSource = Pick<
  typeof emails.$inferSelect,
  | 'id'
  | 'projectId'
  | 'contactId'
  | 'subject'
  | 'fromEmail'
  | 'fromName'
  | 'messageId'
  | 'providerMessageId'
  | 'templateId'
  | 'campaignId'
  | 'sourceType'
>

/** An `email.*` event on the recipient contact: the base fields plus what this kind of event adds. */
export function emailEvent(email: EmailEventSource, name: string, extra: Record<string, unknown>): EventInput {
  return {
    projectId: email.projectId,
    contactId: email.contactId,
    name,
    data: {
      subject: email.subject,
      from: email.fromEmail,
      fromName: email.fromName ?? '',
      messageId: email.providerMessageId ?? email.messageId,
      emailId: email.id,
      templateId: email.templateId,
      campaignId: email.campaignId,
      sourceType: email.sourceType,
      ...extra,
    },
  }
}
