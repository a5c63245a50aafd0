import { createHash } from 'node:crypto'
import { signIds, signLinkToken, verifyIds, verifyLinkToken } from '../signed-links.js'
import { subscriptionPurposes } from './subscription-links.js'
import type { TrackingOptions } from './tracking-html.js'

/**
 * The open pixel and click redirect URLs of one email: `{PUBLIC_URL}/t/open/{token}` and
 * `{PUBLIC_URL}/t/click/{token}`. The open token signs the email id; the click token signs the email id and the id
 * of a link stored for the email's project (`tracked_links`), so the redirect can only ever lead to a link that was
 * in that email, and the URL no longer carries the destination. Tokens of the former format (the link itself signed
 * into the token) are still read: mail already delivered keeps working.
 */
export type EmailTracking = {
  publicUrl: string
  secret: string
  emailId: string
  projectId: string
}

/** A link of a tracked email, to store before the email leaves: `id` is base64url (16 characters). */
export type TrackedLink = { id: string; url: string }

/**
 * `link` is the original as written in the email (character references decoded); `location` is the same URL
 * serialised as a browser would request it (non-ASCII and `<>"` percent-encoded), safe for a `Location` header.
 */
export type LinkTarget = { link: string; location: string }

/** A genuine click token: the link itself (former format), or the id of the link stored for the email's project. */
export type ClickToken = { emailId: string } & ({ target: LinkTarget } | { linkId: Buffer })

const uuidBytes = 16
/**
 * 96 bits of SHA-256: ids are global (the redirect finds a link without knowing its project), and two different
 * links of all projects together colliding stays out of reach (about 1 in 10^10 after a billion links).
 */
const linkIdBytes = 12

const base = (publicUrl: string) => publicUrl.replace(/\/+$/, '')

const uuidToBytes = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex')

function bytesToUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * The id of a link of a project's mail: derived from both, so the compose threads name it without asking the
 * database, every email with that link shares one row, and a retry composes the same bytes.
 */
export function trackedLinkId(projectId: string, link: string): Buffer {
  return createHash('sha256').update(`${projectId}\n${link}`).digest().subarray(0, linkIdBytes)
}

/** 32 characters: the email id and its signature. */
export function openPixelUrl(publicUrl: string, secret: string, emailId: string): string {
  return `${base(publicUrl)}/t/open/${signIds(secret, 'open-id', uuidToBytes(emailId))}`
}

/** 48 characters: the email id, the link's id and their signature. */
export function clickUrl(publicUrl: string, secret: string, emailId: string, linkId: Buffer): string {
  const ids = Buffer.concat([uuidToBytes(emailId), linkId])
  return `${base(publicUrl)}/t/click/${signIds(secret, 'click-id', ids)}`
}

/** The redirect for a link: only an absolute http(s) URL, serialised for a `Location` header. */
export function linkTarget(link: string): LinkTarget | undefined {
  if (!/^https?:\/\//i.test(link) || !URL.canParse(link)) return undefined
  return { link, location: new URL(link).href }
}

/** The email an open token was minted for, or undefined for anything altered or foreign. Either format. */
export function readOpenToken(secret: string, token: string): string | undefined {
  if (!token.includes('.')) {
    const ids = verifyIds(secret, 'open-id', token, uuidBytes)
    return ids && bytesToUuid(ids)
  }
  const parts = verifyLinkToken(secret, 'open', token)
  return parts?.length === 1 && parts[0] ? parts[0] : undefined
}

/** What a click token names, or undefined when altered, foreign, or (former format) not an http(s) URL. */
export function readClickToken(secret: string, token: string): ClickToken | undefined {
  if (!token.includes('.')) {
    const ids = verifyIds(secret, 'click-id', token, uuidBytes + linkIdBytes)
    return ids && { emailId: bytesToUuid(ids.subarray(0, uuidBytes)), linkId: ids.subarray(uuidBytes) }
  }
  const parts = verifyLinkToken(secret, 'click', token)
  if (parts?.length !== 2) return undefined
  const [emailId, link] = parts
  const target = link === undefined ? undefined : linkTarget(link)
  return emailId && target ? { emailId, target } : undefined
}

/** The former click URL, with the link readable in its token: still redirected, no longer minted (tests mint it). */
export function legacyClickUrl(publicUrl: string, secret: string, emailId: string, link: string): string {
  return `${base(publicUrl)}/t/click/${signLinkToken(secret, 'click', [emailId, link])}`
}

/** What `applyTracking` needs for one email, and the links its click URLs name (to store before it is sent). */
export type EmailTracker = { options: TrackingOptions; links(): TrackedLink[] }

/** Tracking for one email; its unsubscribe, subscribe and manage links are never rewritten. */
export function emailTracker(tracking: EmailTracking): EmailTracker {
  const { publicUrl, secret, emailId, projectId } = tracking
  const links = new Map<string, TrackedLink>()
  return {
    options: {
      clickUrl(link) {
        const id = trackedLinkId(projectId, link)
        const key = id.toString('base64url')
        if (!links.has(key)) links.set(key, { id: key, url: link })
        return clickUrl(publicUrl, secret, emailId, id)
      },
      pixelUrl: openPixelUrl(publicUrl, secret, emailId),
      // Any subscription page link of ours, by prefix: signing this contact's three URLs to compare them exactly
      // would cost three HMACs per email for the same answer.
      keep: subscriptionPurposes.map((purpose) => `${base(publicUrl)}/${purpose}/`),
    },
    links: () => [...links.values()],
  }
}
