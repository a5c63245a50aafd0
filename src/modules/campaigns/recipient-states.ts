import { type SQL, sql } from 'drizzle-orm'
import { emailStatus } from '../../db/schema/index.js'

type EmailStatus = (typeof emailStatus.enumValues)[number]

export const recipientStates = [
  'queued',
  'sent',
  'delivered',
  'failed',
  'bounced',
  'complained',
  'opened',
  'clicked',
  'unsubscribed',
] as const
export type RecipientState = (typeof recipientStates)[number]

/**
 * Which emails a state holds, as the statuses they may have and what else they must show. A state is something
 * that happened, so an email is in several at once (a clicked email was sent, delivered and opened): since its
 * status only moves up the ranking (src/mail/email-status.ts), an email that reached a state has that state's
 * status or a later one, and the state's moment. Every part is a range of `emails_campaign_index`
 * (campaign_id, status, id), read in id order.
 */
const parts: Record<Exclude<RecipientState, 'unsubscribed'>, { statuses: EmailStatus[]; moment?: SQL }> = {
  queued: { statuses: ['QUEUED', 'SENDING'] },
  sent: {
    statuses: ['SENT', 'FAILED', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED'],
    moment: sql`e.sent_at`,
  },
  delivered: { statuses: ['DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED'], moment: sql`e.delivered_at` },
  failed: { statuses: ['FAILED'] },
  opened: { statuses: ['OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED'], moment: sql`e.opened_at` },
  clicked: { statuses: ['CLICKED', 'BOUNCED', 'COMPLAINED'], moment: sql`e.clicked_at` },
  bounced: { statuses: ['BOUNCED', 'COMPLAINED'], moment: sql`e.bounced_at` },
  complained: { statuses: ['COMPLAINED'] },
}

/** One range to read: a status (or every unsubscribe) and the condition the state adds. */
export type RecipientBranch = { status: EmailStatus | 'unsubscribed'; condition?: SQL }

/** The ranges of a state, in the order a listing reads them; every recipient when no state is given. */
export function branchesOf(state: RecipientState | undefined): RecipientBranch[] {
  if (state === undefined) return emailStatus.enumValues.map((status) => ({ status }))
  if (state === 'unsubscribed') return [{ status: 'unsubscribed' }]
  const { statuses, moment } = parts[state]
  return statuses.map((status) => ({ status, ...(moment ? { condition: sql`${moment} IS NOT NULL` } : {}) }))
}
