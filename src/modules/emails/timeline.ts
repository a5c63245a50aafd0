import { detailOf, type EmailHistoryKind, emailHistoryKinds } from '../email-history/entries.js'
import type { EmailView, TimelineEntry } from './schemas.js'

type StoredEntry = { at: Date; kind: string; detail: Record<string, unknown> }

const isHistoryKind = (kind: string): kind is EmailHistoryKind =>
  (emailHistoryKinds as readonly string[]).includes(kind)

/**
 * The email's story in order: its acceptance (the row's `createdAt`), then what the history recorded. Facts the
 * row keeps that no entry records are added from the row, marked `fromRecord`: an address suppressed when the email
 * was queued or claimed (failed without an attempt), and mail recorded before the history existed.
 */
export function timelineOf(email: EmailView, stored: readonly StoredEntry[]): TimelineEntry[] {
  const recorded = stored.flatMap((entry) => (isHistoryKind(entry.kind) ? [{ ...entry, kind: entry.kind }] : []))
  const kinds = new Set<string>(recorded.map((entry) => entry.kind))
  const accepted: TimelineEntry = {
    at: email.createdAt,
    kind: 'accepted',
    detail: detailOf({
      sourceType: email.sourceType,
      relayed: email.relayed,
      campaignId: email.campaignId,
      workflowId: email.workflowId,
    }),
  }
  const fromRecord: [EmailHistoryKind, Date | null, Record<string, unknown>][] = [
    ['sent', email.sentAt, { providerMessageId: email.providerMessageId }],
    ['failed', email.failedAt, { error: email.lastError }],
    ['delivered', email.deliveredAt, {}],
    ['bounced', email.bouncedAt, {}],
    ['complained', email.complainedAt, {}],
  ]
  const missing = fromRecord.flatMap(([kind, at, detail]): TimelineEntry[] =>
    at && !kinds.has(kind) ? [{ at, kind, detail: detailOf({ ...detail, fromRecord: true }) }] : [],
  )
  // Stable: entries written at one moment keep the order they were written in.
  return [accepted, ...recorded, ...missing].sort((a, b) => a.at.getTime() - b.at.getTime())
}
