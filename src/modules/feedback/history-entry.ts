import { detailOf, type EmailHistoryInsert, type EmailHistoryKind } from '../email-history/entries.js'
import type { MachineReason } from './machine-hits.js'
import type { EmailFeedback } from './service.js'

const kindOfFeedback: Record<EmailFeedback['kind'], EmailHistoryKind> = {
  delivery: 'delivered',
  open: 'opened',
  click: 'clicked',
  bounce: 'bounced',
  complaint: 'complained',
}

/**
 * The history entry of a report that changed the email or emitted its event (a repeated delivery, bounce or
 * complaint report writes none, as it emits none): what happened, when, and the evidence the report carried.
 */
export function historyEntryOf(
  email: { id: string; projectId: string },
  feedback: EmailFeedback,
  machineReason: MachineReason | undefined,
): EmailHistoryInsert {
  const common = { emailId: email.id, projectId: email.projectId, at: feedback.at, kind: kindOfFeedback[feedback.kind] }
  switch (feedback.kind) {
    case 'open':
      return {
        ...common,
        detail: detailOf({ machine: machineReason !== undefined, reason: machineReason, ...hit(feedback) }),
      }
    case 'click':
      return {
        ...common,
        detail: detailOf({
          link: feedback.link,
          machine: machineReason !== undefined,
          reason: machineReason,
          ...hit(feedback),
        }),
      }
    case 'bounce':
      return { ...common, detail: detailOf({ bounceType: feedback.bounceType, ...feedback.evidence }) }
    case 'delivery':
    case 'complaint':
      return { ...common, detail: detailOf({ ...feedback.evidence }) }
  }
}

function hit(feedback: { source?: string; userAgent?: string | null }) {
  return { source: feedback.source, userAgent: feedback.userAgent }
}
