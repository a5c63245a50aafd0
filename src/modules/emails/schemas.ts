import { z } from 'zod'
import { emailSourceType, emailStatus } from '../../db/schema/index.js'
import { cursorPage, cursorPageQuery } from '../../http/pagination.js'
import { isoDateTime } from '../analytics/period.js'
import { emailHistoryKinds } from '../email-history/entries.js'

export const emailIdParams = z.object({ id: z.uuid() })

const commaList = <Value extends string>(values: readonly [Value, ...Value[]]) =>
  z
    .string()
    .transform((text) => text.split(',').map((value) => value.trim()))
    .pipe(z.array(z.enum(values)).min(1).max(values.length))

export const emailListQuery = cursorPageQuery.extend({
  /** The recipient's address, matched whole and without regard to case. */
  recipient: z.string().trim().min(1).max(320).optional(),
  /** Comma-separated statuses, e.g. `BOUNCED,COMPLAINED`. */
  status: commaList(emailStatus.enumValues).optional(),
  sourceType: z.enum(emailSourceType.enumValues).optional(),
  contactId: z.uuid().optional(),
  campaignId: z.uuid().optional(),
  workflowId: z.uuid().optional(),
  templateId: z.uuid().optional(),
  /** Accepted at or after; defaults to 7 days before `endDate`, and may be at most 31 days before it. */
  startDate: isoDateTime.optional(),
  /** Accepted before; defaults to now. */
  endDate: isoDateTime.optional(),
})
export type EmailListQuery = z.infer<typeof emailListQuery>

const address = z.object({ email: z.string(), name: z.string().nullable() })

/** When an email reached each state of its way out, null until it did: the email view's and a campaign recipient's. */
export const emailMoments = {
  sentAt: z.date().nullable(),
  deliveredAt: z.date().nullable(),
  openedAt: z.date().nullable(),
  clickedAt: z.date().nullable(),
  bouncedAt: z.date().nullable(),
  complainedAt: z.date().nullable(),
  failedAt: z.date().nullable(),
}

const emailView = z.object({
  id: z.uuid(),
  /** The Message-ID header (without angle brackets); a relayed message keeps the client's own. */
  messageId: z.string(),
  /** The id the provider returned at the handover (SES), or our Message-ID for SMTP. */
  providerMessageId: z.string().nullable(),
  status: z.enum(emailStatus.enumValues),
  sourceType: z.enum(emailSourceType.enumValues),
  /** Taken over SMTP submission (the relay) and sent as the client wrote it. */
  relayed: z.boolean(),
  from: address,
  to: address,
  replyTo: z.string().nullable(),
  subject: z.string(),
  contactId: z.uuid().nullable(),
  templateId: z.uuid().nullable(),
  campaignId: z.uuid().nullable(),
  workflowId: z.uuid().nullable(),
  workflowExecutionId: z.uuid().nullable(),
  /** The message's size in bytes where it is stored whole (relayed mail); null for mail composed at sending. */
  sizeBytes: z.number().int().nullable(),
  tracked: z.boolean(),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  /** When the next attempt is due, while the email waits in the outbox. */
  nextAttemptAt: z.date().nullable(),
  opens: z.number().int(),
  clicks: z.number().int(),
  machineOpens: z.number().int(),
  machineClicks: z.number().int(),
  createdAt: z.date(),
  ...emailMoments,
})
export type EmailView = z.infer<typeof emailView>

const timelineKinds = ['accepted', ...emailHistoryKinds] as const

const timelineEntry = z.object({
  at: z.date(),
  kind: z.enum(timelineKinds),
  /** What the kind says (see the API docs): the transport's answer, the provider's evidence, person or machine. */
  detail: z.record(z.string(), z.unknown()),
})
export type TimelineEntry = z.infer<typeof timelineEntry>

export const emailTimeline = emailView.extend({ history: z.array(timelineEntry) })
export type EmailTimeline = z.infer<typeof emailTimeline>

export const emailPage = cursorPage(emailView)
