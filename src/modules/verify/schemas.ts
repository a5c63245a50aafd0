import { z } from 'zod'

export const verifyRequest = z.object({ email: z.string().trim() })
export type VerifyRequest = z.infer<typeof verifyRequest>

export const verificationResult = z.object({
  email: z.string(),
  valid: z.boolean(),
  isDisposable: z.boolean(),
  isAlias: z.boolean(),
  isTypo: z.boolean(),
  isPlusAddressed: z.boolean(),
  isPersonalEmail: z.boolean(),
  domainExists: z.boolean(),
  hasWebsite: z.boolean(),
  hasMxRecords: z.boolean(),
  suggestedEmail: z.string().optional(),
  reasons: z.array(z.string()),
})
export type VerificationResult = z.infer<typeof verificationResult>

export const verifyResponse = z.object({ success: z.literal(true), data: verificationResult })
