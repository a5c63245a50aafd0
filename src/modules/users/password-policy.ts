import { dictionary } from '@zxcvbn-ts/language-common'
import { z } from 'zod'

/**
 * The password policy (README, "Accounts, teams and roles"): 8 to 256 characters, and not one of the ~49,000 most common
 * passwords of zxcvbn-ts's shipped list, compared case-insensitively, so `Password1` is refused like `password1`.
 * Length beats composition rules (NIST SP 800-63B), so there are none.
 */
const passwordMinLength = 8
const passwordMaxLength = 256

const commonPasswords = new Set(dictionary['passwords-common'])

function isCommonPassword(password: string): boolean {
  return commonPasswords.has(password.toLowerCase())
}

export const newPassword = z
  .string()
  // abort: a short password gets one error, not also "common".
  .min(passwordMinLength, { message: `must be at least ${passwordMinLength} characters`, abort: true })
  .max(passwordMaxLength, { abort: true })
  .refine((password) => !isCommonPassword(password), 'is one of the most common passwords; choose another')
