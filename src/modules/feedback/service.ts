import { eq } from 'drizzle-orm'
import type { Transaction } from '../../db/client.js'
import { emails } from '../../db/schema/index.js'
import { publishEvents } from '../../events/bus.js'
import { type EmailStatus, nextEmailStatus, statusOfFeedback } from '../../mail/email-status.js'
import { setContactSubscription } from '../contacts/service.js'
import { insertHistory } from '../email-history/entries.js'
import { suppressAddress } from '../suppressions/service.js'
import { emailEvent } from './email-events.js'
import { historyEntryOf } from './history-entry.js'
import { type HitClient, type MachineReason, machineReasonOf } from './machine-hits.js'

/**
 * What the email's history keeps as proof of a report: where it came from (`smtp`: our transport's reply,
 * `provider`: an SES report, `report`: a mailbox provider's ARF complaint report to our inbound receiver) and
 * what it said (a reply code and text, a bounce subtype, a diagnostic...).
 */
type FeedbackEvidence = { source: 'smtp' | 'provider' | 'report' } & Record<string, string | undefined>

/** Who hit a tracking link or pixel, for the email's history: `tracking` (ours) or `provider` (SES's tracking). */
type HitOrigin = { source?: 'tracking' | 'provider'; userAgent?: string | null }

/** What a provider report, a tracking hit or our own transport learned about one sent email. */
export type EmailFeedback =
  | { kind: 'delivery'; at: Date; evidence?: FeedbackEvidence }
  | ({ kind: 'open'; at: Date; client?: HitClient } & HitOrigin)
  | ({ kind: 'click'; at: Date; link: string; client?: HitClient } & HitOrigin)
  | { kind: 'bounce'; at: Date; bounceType: 'Permanent' | 'Transient'; evidence?: FeedbackEvidence }
  | { kind: 'complaint'; at: Date; evidence?: FeedbackEvidence }

/** Our own email id (tracking links, the SMTP transport) or the id the provider returned at send (SES). */
export type FeedbackTarget = { emailId: string } | { providerMessageId: string }

/** Opens and clicks by machines (privacy proxies, link scanners) are published under names of their own. */
const machineOpenEvent = 'email.machine_open'
const machineClickEvent = 'email.machine_click'

type FeedbackEmail = typeof emails.$inferSelect
type EmailChanges = Partial<
  Pick<
    FeedbackEmail,
    | 'status'
    | 'deliveredAt'
    | 'openedAt'
    | 'clickedAt'
    | 'bouncedAt'
    | 'complainedAt'
    | 'opens'
    | 'clicks'
    | 'machineOpens'
    | 'machineClicks'
    | 'lastClickedAt'
    | 'lastClickedLink'
  >
>
type Outcome = {
  changes: EmailChanges
  event?: { name: string; extra: Record<string, unknown> }
  /** A machine's open or click: it changes neither the status nor the human counters. */
  machine?: MachineReason
}

/**
 * The counters and first-seen moments a report changes, and the `email.*` event it emits. Opens and clicks
 * emit on every hit with running totals (as Plunk does); delivery, permanent bounce and complaint emit once
 * per email, so a second report of the same fact neither double-counts the bounce rate nor re-triggers
 * workflows. A machine's open or click only counts as one and emits `email.machine_open` / `email.machine_click`
 * with its reason, so `email.open` / `email.click` (workflow triggers, open and click rates) stay people's.
 */
function outcomeOf(email: FeedbackEmail, feedback: EmailFeedback): Outcome {
  const at = feedback.at
  switch (feedback.kind) {
    case 'delivery':
      if (email.deliveredAt) return { changes: {} }
      return {
        changes: { deliveredAt: at },
        event: { name: 'email.delivery', extra: { deliveredAt: at.toISOString() } },
      }
    case 'open': {
      const reason = machineReasonOf(feedback, email)
      if (reason) {
        const machineOpens = email.machineOpens + 1
        return {
          changes: { machineOpens },
          event: { name: machineOpenEvent, extra: { openedAt: at.toISOString(), machine: true, reason, machineOpens } },
          machine: reason,
        }
      }
      const openedAt = email.openedAt ?? at
      const opens = email.opens + 1
      return {
        changes: { openedAt, opens },
        event: {
          name: 'email.open',
          extra: { openedAt: openedAt.toISOString(), opens, isFirstOpen: !email.openedAt, machine: false },
        },
      }
    }
    case 'click': {
      const reason = machineReasonOf(feedback, email)
      const last = { lastClickedAt: at, lastClickedLink: feedback.link }
      if (reason) {
        const machineClicks = email.machineClicks + 1
        return {
          changes: { ...last, machineClicks },
          event: {
            name: machineClickEvent,
            extra: { link: feedback.link, clickedAt: at.toISOString(), machine: true, reason, machineClicks },
          },
          machine: reason,
        }
      }
      const clickedAt = email.clickedAt ?? at
      const clicks = email.clicks + 1
      return {
        changes: { ...last, clickedAt, clicks },
        event: {
          name: 'email.click',
          extra: {
            link: feedback.link,
            clickedAt: clickedAt.toISOString(),
            clicks,
            isFirstClick: !email.clickedAt,
            machine: false,
          },
        },
      }
    }
    case 'bounce':
      if (feedback.bounceType === 'Transient') {
        return {
          changes: {},
          event: { name: 'email.bounce', extra: { bounceType: 'Transient', transientBounce: true } },
        }
      }
      if (email.bouncedAt) return { changes: {} }
      return {
        changes: { bouncedAt: at },
        event: { name: 'email.bounce', extra: { bounceType: 'Permanent', bouncedAt: at.toISOString() } },
      }
    case 'complaint':
      if (email.complainedAt) return { changes: {} }
      return {
        changes: { complainedAt: at },
        event: { name: 'email.complaint', extra: { complainedAt: at.toISOString() } },
      }
  }
}

export type AppliedFeedback = { emailId: string; projectId: string; status: EmailStatus; emitted: string | null }

/**
 * Applies one report to the email it names, inside the caller's transaction: the status only moves up the
 * precedence (a late delivery never hides a complaint), counters and first-seen moments are updated, the
 * `email.*` event is published, and a permanent bounce or a complaint unsubscribes the contact (with
 * `event.reason`) and suppresses the address for the project. Undefined when no email matches. The row is
 * locked first, so concurrent reports for one email (an open and a click) apply one after the other.
 */
export async function applyEmailFeedback(
  tx: Transaction,
  target: FeedbackTarget,
  feedback: EmailFeedback,
): Promise<AppliedFeedback | undefined> {
  const condition =
    'emailId' in target ? eq(emails.id, target.emailId) : eq(emails.providerMessageId, target.providerMessageId)
  const [email] = await tx.select().from(emails).where(condition).limit(1).for('update')
  if (!email) return undefined

  const { changes, event, machine } = outcomeOf(email, feedback)
  // Only a person's open or click moves an email to OPENED or CLICKED (and into reputation and rate metrics).
  const status = machine ? email.status : nextEmailStatus(email.status, statusOfFeedback(feedback))
  if (status !== email.status) changes.status = status
  if (Object.keys(changes).length > 0) {
    await tx
      .update(emails)
      .set({ ...changes, updatedAt: new Date() })
      .where(eq(emails.id, email.id))
  }
  if (event) {
    await publishEvents(tx, [emailEvent(email, event.name, event.extra)])
    // One entry per report: per email and rare next to the outbox's writes, so a statement of its own.
    await insertHistory(tx, [historyEntryOf(email, feedback, machine)])
  }

  const reason =
    event?.name === 'email.complaint'
      ? 'complaint'
      : event?.name === 'email.bounce' && feedback.kind === 'bounce' && feedback.bounceType === 'Permanent'
        ? 'bounce'
        : undefined
  if (reason) {
    await suppressAddress(tx, email.projectId, email.toEmail, reason, email.id)
    if (email.contactId) await setContactSubscription(tx, email.projectId, email.contactId, false, { reason })
  }
  return { emailId: email.id, projectId: email.projectId, status, emitted: event?.name ?? null }
}
