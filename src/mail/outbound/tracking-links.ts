import { signLinkToken, verifyLinkToken } from '../signed-links.js'
import { subscriptionPurposes } from './subscription-links.js'
import type { TrackingOptions } from './tracking-html.js'

/**
 * The open pixel and click redirect URLs of one email: `{PUBLIC_URL}/t/open/{token}` and
 * `{PUBLIC_URL}/t/click/{token}`. The open token signs the email id; the click token signs the email id and
 * the original link together, so the redirect can only ever lead to a link that was in that email.
 */
export type EmailTracking = {
  publicUrl: string
  secret: string
  emailId: string
}

/**
 * `link` is the original as written in the email (character references decoded); `location` is the same URL
 * serialised as a browser would request it (non-ASCII and `<>"` percent-encoded), safe for a `Location` header.
 */
export type TrackedClick = { emailId: string; link: string; location: string }

const base = (publicUrl: string) => publicUrl.replace(/\/+$/, '')

export function openPixelUrl(publicUrl: string, secret: string, emailId: string): string {
  return `${base(publicUrl)}/t/open/${signLinkToken(secret, 'open', [emailId])}`
}

export function clickUrl(publicUrl: string, secret: string, emailId: string, link: string): string {
  return `${base(publicUrl)}/t/click/${signLinkToken(secret, 'click', [emailId, link])}`
}

/** The email an open token was minted for, or undefined for anything altered or foreign. */
export function readOpenToken(secret: string, token: string): string | undefined {
  const parts = verifyLinkToken(secret, 'open', token)
  return parts?.length === 1 && parts[0] ? parts[0] : undefined
}

/** The email and original link of a click token; undefined when altered, foreign or not an http(s) URL. */
export function readClickToken(secret: string, token: string): TrackedClick | undefined {
  const parts = verifyLinkToken(secret, 'click', token)
  if (parts?.length !== 2) return undefined
  const [emailId, link] = parts
  if (!emailId || !link || !/^https?:\/\//i.test(link) || !URL.canParse(link)) return undefined
  return { emailId, link, location: new URL(link).href }
}

/** What `applyTracking` needs for one email; its unsubscribe, subscribe and manage links are never rewritten. */
export function trackingOptions(tracking: EmailTracking): TrackingOptions {
  const { publicUrl, secret, emailId } = tracking
  return {
    clickUrl: (link) => clickUrl(publicUrl, secret, emailId, link),
    pixelUrl: openPixelUrl(publicUrl, secret, emailId),
    // Any subscription page link of ours, by prefix: signing this contact's three URLs to compare them exactly
    // would cost three HMACs per email for the same answer.
    keep: subscriptionPurposes.map((purpose) => `${base(publicUrl)}/${purpose}/`),
  }
}
