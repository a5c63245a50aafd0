import { z } from 'zod'
import { presendFinding } from './findings.js'

const counts = {
  findings: z.array(presendFinding),
  errors: z.number().int(),
  warnings: z.number().int(),
}

/** `GET /campaigns/:id/check`, in the campaign routes' `{success, data}` envelope. */
export const campaignCheck = z.object({
  success: z.literal(true),
  data: z.object({
    ...counts,
    /** Whether a send or schedule without `force` would be refused now. */
    blocked: z.boolean(),
    /** How its last send or schedule got past errors: an owner's override, or null. */
    override: z.object({ userId: z.string().nullable(), at: z.string(), codes: z.array(z.string()) }).nullable(),
  }),
})
export type CampaignCheck = z.infer<typeof campaignCheck>

/** `GET /templates/:id/check`, bare as the template routes answer; a template is never refused for its findings. */
export const templateCheck = z.object(counts)
export type TemplateCheck = z.infer<typeof templateCheck>
