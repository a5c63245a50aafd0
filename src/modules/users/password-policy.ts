import { createRequire } from 'node:module'
import { z } from 'zod'

/**
 * The password policy (README, "Accounts, teams and roles"): 8 to 256 characters, and not one of the ~49,000 most common
 * passwords of zxcvbn-ts's shipped list, compared case-insensitively, so `Password1` is refused like `password1`.
 * Length beats composition rules (NIST SP 800-63B), so there are none.
 */
const passwordMinLength = 8
const passwordMaxLength = 256

// Loaded with the first password checked, not with every start: the package decompresses all its word lists when
// it loads (~100 ms). Synchronously, as the schema's check is; its CommonJS build is the same code.
let commonPasswords: Set<string> | undefined
const require = createRequire(import.meta.url)

function isCommonPassword(password: string): boolean {
  if (!commonPasswords) {
    const { dictionary }: typeof import('@zxcvbn-ts/language-common') = require('@zxcvbn-ts/language-common')
    commonPasswords = new Set(dictionary['passwords-common'])
  }
  return commonPasswords.has(password.toLowerCase())
}

export const newPassword = z
  .string()
  // abort: a short password gets one error, not also "common".
  .min(passwordMinLength, { message: `must be at least ${passwordMinLength} characters`, abort: true })
  .max(passwordMaxLength, { abort: true })
  .refine((password) => !isCommonPassword(password), 'is one of the most common passwords; choose another')
