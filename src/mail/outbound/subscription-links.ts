import { uuidPattern } from '../../db/keyset.js'
import { signLinkToken, verifyLinkToken } from '../signed-links.js'

/**
 * The per-contact `unsubscribeUrl`, `subscribeUrl` and `manageUrl` of templates and webhook placeholders.
 * Each carries a token signed for its own purpose, so a leaked manage link cannot be replayed as a one-click
 * unsubscribe and no link can be edited to act on another contact or project. Tokens never expire: an
 * unsubscribe link in a years-old email must still work (CAN-SPAM, RFC 8058).
 */
export const subscriptionPurposes = ['unsubscribe', 'subscribe', 'manage'] as const
export type SubscriptionPurpose = (typeof subscriptionPurposes)[number]

/**
 * Whose links these are. Campaign mail also names its campaign, so an unsubscribe through it counts in that
 * campaign's `unsubscribedCount`; the signature covers it like the rest. An email whose id is chosen before it is
 * rendered (`/v1/send`, workflow steps) names itself instead: its row names the project, the contact and the
 * campaign, the link is shorter, and an unsubscribe through it shows on that email's timeline.
 */
export type SubscriptionSubject = {
  projectId: string
  contactId: string
  campaignId?: string | null
  emailId?: string | null
}

/** What a token names: the contact (and campaign) as written, or the email it came in. */
export type SubscriptionTokenSubject =
  | { projectId: string; contactId: string; campaignId?: string }
  | { emailId: string }

export type SubscriptionUrls = { unsubscribeUrl: string; subscribeUrl: string; manageUrl: string }

export function subscriptionToken(secret: string, purpose: SubscriptionPurpose, subject: SubscriptionSubject): string {
  if (subject.emailId) return signLinkToken(secret, purpose, [subject.emailId])
  const parts = [subject.projectId, subject.contactId]
  return signLinkToken(secret, purpose, subject.campaignId ? [...parts, subject.campaignId] : parts)
}

/** What a token was minted for, or undefined for anything altered, foreign or of another purpose. */
export function readSubscriptionToken(
  secret: string,
  purpose: SubscriptionPurpose,
  token: string,
): SubscriptionTokenSubject | undefined {
  const parts = verifyLinkToken(secret, purpose, token)
  if (parts?.length === 1) return parts[0] && uuidPattern.test(parts[0]) ? { emailId: parts[0] } : undefined
  if (!parts || parts.length < 2 || parts.length > 3) return undefined
  const [projectId, contactId, campaignId] = parts
  if (!projectId || !contactId || (campaignId !== undefined && !uuidPattern.test(campaignId))) return undefined
  return campaignId ? { projectId, contactId, campaignId } : { projectId, contactId }
}

/** `{publicUrl}/{purpose}/{token}`; a path prefix in PUBLIC_URL (behind a proxy) is kept. */
export function subscriptionUrl(
  publicUrl: string,
  secret: string,
  purpose: SubscriptionPurpose,
  subject: SubscriptionSubject,
): string {
  return `${publicUrl.replace(/\/+$/, '')}/${purpose}/${subscriptionToken(secret, purpose, subject)}`
}

/**
 * Adds the three URLs to `target` as getters that sign on first read and remember the result: most templates
 * use none of them, and signing is most of what rendering a short email costs.
 */
export function withSubscriptionUrls<T extends object>(
  target: T,
  publicUrl: string,
  secret: string,
  subject: SubscriptionSubject,
): T & SubscriptionUrls {
  for (const purpose of subscriptionPurposes) {
    let url: string | undefined
    Object.defineProperty(target, `${purpose}Url`, {
      enumerable: true,
      get: () => {
        url ??= subscriptionUrl(publicUrl, secret, purpose, subject)
        return url
      },
    })
  }
  return target as T & SubscriptionUrls
}

export function subscriptionUrls(publicUrl: string, secret: string, subject: SubscriptionSubject): SubscriptionUrls {
  return withSubscriptionUrls({}, publicUrl, secret, subject)
}

/** Who a campaign's test email went to when that address is no contact of the project: there is no one to change. */
export type PreviewSubject = { projectId: string; email: string }

export function previewUrl(
  publicUrl: string,
  secret: string,
  purpose: SubscriptionPurpose,
  subject: PreviewSubject,
): string {
  const token = signLinkToken(secret, 'subscription-preview', [purpose, subject.projectId, subject.email])
  return `${publicUrl.replace(/\/+$/, '')}/${purpose}/${token}`
}

/**
 * The links of a test email to a member who is no contact: the same pages at the same paths as a recipient's,
 * shown as a preview that changes nothing (there is no contact to change, and none is made).
 */
export function previewSubscriptionUrls(publicUrl: string, secret: string, subject: PreviewSubject): SubscriptionUrls {
  return {
    unsubscribeUrl: previewUrl(publicUrl, secret, 'unsubscribe', subject),
    subscribeUrl: previewUrl(publicUrl, secret, 'subscribe', subject),
    manageUrl: previewUrl(publicUrl, secret, 'manage', subject),
  }
}

/** The test recipient a preview link of this purpose was minted for, or undefined for anything else. */
export function readPreviewToken(
  secret: string,
  purpose: SubscriptionPurpose,
  token: string,
): PreviewSubject | undefined {
  const parts = verifyLinkToken(secret, 'subscription-preview', token)
  if (parts?.length !== 3 || parts[0] !== purpose) return undefined
  const [, projectId, email] = parts
  return projectId && email && uuidPattern.test(projectId) ? { projectId, email } : undefined
}
