import { z } from 'zod'

const rateWindow = z.object({
  /** Emails handed to the transport (`email.sent`). */
  total: z.number().int(),
  /** Permanent bounces. */
  bounces: z.number().int(),
  complaints: z.number().int(),
  /** Percent of `total`. */
  bounceRate: z.number(),
  complaintRate: z.number(),
})

const suspensionView = z.object({
  id: z.uuid(),
  reason: z.enum(['BOUNCE_RATE', 'COMPLAINT_RATE']),
  message: z.string(),
  sent: z.number().int(),
  bounces: z.number().int(),
  complaints: z.number().int(),
  bounceRate: z.number(),
  complaintRate: z.number(),
  pausedAt: z.date(),
  liftedAt: z.date().nullable(),
  liftedBy: z.uuid().nullable(),
})
export type SuspensionView = z.infer<typeof suspensionView>

export const securityView = z.object({
  projectId: z.uuid(),
  /** `PAUSED` while the reputation guard holds the project's sending. */
  sending: z.enum(['ACTIVE', 'PAUSED']),
  pausedReason: z.string().nullable(),
  isDisabled: z.boolean(),
  /** No 7-day rate at or over its threshold (with at least the minimum volume sent). */
  isHealthy: z.boolean(),
  twentyFourHour: rateWindow,
  sevenDay: rateWindow,
  allTime: rateWindow,
  thresholds: z.object({
    enabled: z.boolean(),
    bounceRate: z.number(),
    complaintRate: z.number(),
    minimumSent: z.number().int(),
  }),
  /** The 20 most recent pauses, newest first. */
  suspensions: z.array(suspensionView),
})
export type SecurityView = z.infer<typeof securityView>
