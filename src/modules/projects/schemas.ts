import { z } from 'zod'

export const projectCreate = z.object({
  name: z.string().trim().min(1).max(100),
})
export type ProjectCreate = z.infer<typeof projectCreate>

/** Open and click tracking: all mail, none, or only marketing (campaigns, workflows, MARKETING templates). */
const trackingMode = z.enum(['ENABLED', 'DISABLED', 'MARKETING_ONLY'])

export const projectUpdate = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  tracking: trackingMode.optional(),
})
export type ProjectUpdate = z.infer<typeof projectUpdate>

export const projectView = z.object({
  id: z.uuid(),
  name: z.string(),
  public: z.string(),
  secret: z.string(),
  disabled: z.boolean(),
  disabledReason: z.string().nullable(),
  tracking: trackingMode,
  /**
   * Read-only: tracked emails whose HTML is this many characters or fewer get no open pixel (their clicks are still
   * tracked). Spam filters (SpamAssassin's HTML_IMAGE_ONLY rules) score any image in HTML that short as an
   * image-only email, so the pixel would cost a short email its score; opens of such emails are not counted.
   */
  trackingPixelMinHtmlLength: z.number().int(),
  role: z.enum(['OWNER', 'ADMIN', 'MEMBER']),
  /** Plunk's names: the Stripe customer and subscription ids, null until a checkout completes. */
  customer: z.string().nullable(),
  subscription: z.string().nullable(),
  /** Stripe's status of the subscription (`active`, `past_due`, `canceled`, ...) as its webhooks last reported it. */
  subscriptionStatus: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type ProjectView = z.infer<typeof projectView>

/** Reset and delete name the project, so a stray or replayed request cannot wipe the wrong one. */
export const projectConfirmation = z.object({
  confirm: z.string().min(1).max(200),
})

/** Plunk's answer to a reset or delete. */
export const projectDone = z.object({ success: z.literal(true), message: z.string() })
