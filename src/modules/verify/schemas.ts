import { z } from 'zod'

/**
 * The spec's `email (string, email, required)`: a string that is no address is a 422; a well-formed one is
 * verified, and a 200 says whether it can receive mail. Lengths (RFC 5321) first, so the format pattern never runs
 * on an oversized input.
 */
const verifiableEmail = z
  .string()
  .trim()
  .max(254, 'Must be an email address of at most 254 characters')
  .refine(
    (email) => email.lastIndexOf('@') <= 64,
    'The part of an email address before @ may have at most 64 characters',
  )
  .pipe(z.email('Must be an email address'))

export const verifyRequest = z.object({ email: verifiableEmail })

const verificationResult = z.object({
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
