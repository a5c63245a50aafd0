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

const sendingState = z.enum(['ACTIVE', 'PAUSED'])

/** One stream of the project's mail: whether it goes out, and its own rates. */
const streamView = z.object({
  sending: sendingState,
  /** Why the stream is held: its own pause, or (for marketing) the pause of all sending. */
  pausedReason: z.string().nullable(),
  /** Not held, and no 7-day rate at or over the warning thresholds (with at least the minimum volume sent). */
  isHealthy: z.boolean(),
  twentyFourHour: rateWindow,
  sevenDay: rateWindow,
  allTime: rateWindow,
})

const suspensionView = z.object({
  id: z.uuid(),
  /** What the pause held: the marketing stream, or all of the project's sending. */
  scope: z.enum(['MARKETING', 'PROJECT']),
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
  /** `PAUSED` while the reputation guard holds all of the project's sending (see `streams` for marketing alone). */
  sending: sendingState,
  pausedReason: z.string().nullable(),
  isDisabled: z.boolean(),
  /** Nothing held by the guard, and no 7-day rate, of all mail or of a stream, at or over the warning thresholds. */
  isHealthy: z.boolean(),
  /** All of the project's mail. */
  twentyFourHour: rateWindow,
  sevenDay: rateWindow,
  allTime: rateWindow,
  /**
   * Marketing: campaigns, and MARKETING-template mail of `/v1/send` and workflows; paused at the warning thresholds.
   * Transactional: the rest; paused, with all sending, only at the ceiling.
   */
  streams: z.object({ marketing: streamView, transactional: streamView }),
  thresholds: z.object({
    enabled: z.boolean(),
    /** Warning thresholds, in percent: the marketing stream pauses here. */
    bounceRate: z.number(),
    complaintRate: z.number(),
    /** The ceiling, in percent: the transactional stream reaching it pauses all sending. */
    ceilingBounceRate: z.number(),
    ceilingComplaintRate: z.number(),
    minimumSent: z.number().int(),
  }),
  /** The 20 most recent pauses, newest first. */
  suspensions: z.array(suspensionView),
})
export type SecurityView = z.infer<typeof securityView>
