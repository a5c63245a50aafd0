import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto'

/**
 * Compact signed tokens for links in emails (open pixel, click redirects, unsubscribe pages): the payload is
 * readable but cannot be forged or altered without the server's secret. Each purpose has its own key, so a
 * token minted for one kind of link is useless for another.
 */
export type LinkPurpose =
  | 'open'
  | 'click'
  | 'unsubscribe'
  | 'subscribe'
  | 'manage'
  | 'unsubscribe-mailbox'
  | 'invitation'
  | 'complaint-feedback'
  | 'subscription-preview'
  // Tracking tokens that name stored ids (`signIds`): keys of their own, apart from the readable `open`/`click` ones.
  | 'open-id'
  | 'click-id'

const signatureBytes = 16

// Derived once per secret and purpose: every email signs several links. Kept as KeyObjects: on Node 24 an HMAC
// keyed with a Buffer costs ~35 µs against ~9 µs with a KeyObject (checking whether a Buffer is a KeyObject is slow).
const purposeKeys = new Map<string, KeyObject>()

function purposeKey(secret: string, purpose: LinkPurpose): KeyObject {
  const id = `${purpose}\n${secret}`
  let key = purposeKeys.get(id)
  if (!key) {
    key = createSecretKey(createHmac('sha256', secret).update(`mailroom-link:${purpose}`).digest())
    purposeKeys.set(id, key)
  }
  return key
}

function signature(secret: string, purpose: LinkPurpose, payload: string | Buffer): Buffer {
  return createHmac('sha256', purposeKey(secret, purpose)).update(payload).digest().subarray(0, signatureBytes)
}

export function signLinkToken(secret: string, purpose: LinkPurpose, parts: readonly string[]): string {
  return signPayload(secret, purpose, Buffer.from(parts.join('\n')))
}

/** The signed parts, or undefined for anything tampered, truncated or minted for another purpose. */
export function verifyLinkToken(secret: string, purpose: LinkPurpose, token: string): string[] | undefined {
  return verifyPayload(secret, purpose, token)?.toString().split('\n')
}

/** `payload.mac`, both base64url: the payload's bytes as given, for tokens that must be short. */
export function signPayload(secret: string, purpose: LinkPurpose, bytes: Buffer): string {
  const payload = bytes.toString('base64url')
  return `${payload}.${signature(secret, purpose, payload).toString('base64url')}`
}

/** The signed bytes, or undefined for anything tampered, truncated or minted for another purpose. */
export function verifyPayload(secret: string, purpose: LinkPurpose, token: string): Buffer | undefined {
  const [payload, mac, extra] = token.split('.')
  if (!payload || !mac || extra !== undefined) return undefined
  // Compared as text: decoding would ignore the last character's padding bits, so several spellings of one
  // signature would pass.
  const given = Buffer.from(mac)
  const expected = Buffer.from(signature(secret, purpose, payload).toString('base64url'))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  return Buffer.from(payload, 'base64url')
}

/**
 * The signature of an id token: 8 bytes of the HMAC. Forging one takes 2^63 tries on average, each a request
 * against a rate limit per link; the readable tokens above keep 16 bytes.
 */
const idSignatureBytes = 8

/**
 * `base64url(ids ‖ mac)`, one piece with no separator, for tokens that name rows the server keeps (an email, a
 * stored link): shorter than `signPayload`, whose payload carries the data itself. With `ids` of a length such that
 * `ids + 8` is a multiple of 3 bytes, every token has exactly one spelling.
 */
export function signIds(secret: string, purpose: LinkPurpose, ids: Buffer): string {
  return Buffer.concat([ids, signature(secret, purpose, ids).subarray(0, idSignatureBytes)]).toString('base64url')
}

/** The `idsLength` signed bytes, or undefined for anything tampered, truncated, re-spelled or of another purpose. */
export function verifyIds(secret: string, purpose: LinkPurpose, token: string, idsLength: number): Buffer | undefined {
  const bytes = Buffer.from(token, 'base64url')
  // Re-encoding rejects any other spelling of the same bytes: padding bits, `=`, characters base64url lacks.
  if (bytes.length !== idsLength + idSignatureBytes || bytes.toString('base64url') !== token) return undefined
  const ids = bytes.subarray(0, idsLength)
  const expected = signature(secret, purpose, ids).subarray(0, idSignatureBytes)
  return timingSafeEqual(bytes.subarray(idsLength), expected) ? ids : undefined
}
