import { domainToASCII } from 'node:url'

/** The form contacts and users are stored and compared in. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** A domain as sender domains are stored and looked up: lower-case ASCII (punycode), no trailing dot. */
export function normalizeDomain(value: string): string {
  return domainToASCII(value.trim().replace(/\.$/, '').toLowerCase())
}

/** The normalized domain of an address, or of a bare domain. */
export function domainOf(address: string): string {
  return normalizeDomain(address.slice(address.lastIndexOf('@') + 1))
}
