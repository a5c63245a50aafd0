import { verify } from 'node:crypto'
import { z } from 'zod'

/** An Amazon SNS HTTP(S) message envelope: notifications and (un)subscription confirmations. */
export const snsMessage = z.object({
  Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
  MessageId: z.string().min(1),
  TopicArn: z.string().min(1),
  Subject: z.string().optional(),
  Message: z.string(),
  Timestamp: z.string().min(1),
  SignatureVersion: z.enum(['1', '2']),
  Signature: z.string().min(1),
  SigningCertURL: z.string().min(1),
  SubscribeURL: z.string().optional(),
  UnsubscribeURL: z.string().optional(),
  Token: z.string().optional(),
})
export type SnsMessage = z.infer<typeof snsMessage>

/** An SNS `Message` (a JSON string, or already parsed) as JSON; undefined when the string is not JSON. */
export function messageJson(message: unknown): unknown {
  if (typeof message !== 'string') return message
  try {
    return JSON.parse(message)
  } catch {
    return undefined
  }
}

export type SnsTrust = {
  /** Whether a signing certificate may be fetched from this URL at all. */
  isTrustedCertificateUrl(url: URL): boolean
  fetchCertificate(url: URL): Promise<string>
  /** Whether a `SubscribeURL` may be fetched to confirm a subscription (anything else would be SSRF). */
  isTrustedSubscribeUrl(url: URL): boolean
}

const snsHost = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/

/** An https URL on an SNS host itself, on the default port. */
export function isAmazonSnsUrl(url: URL): boolean {
  return url.protocol === 'https:' && snsHost.test(url.hostname) && url.port === ''
}

/** Only certificates served by SNS itself over https, so a forged message cannot point at its own key. */
export function isAmazonSnsCertificateUrl(url: URL): boolean {
  return isAmazonSnsUrl(url) && url.pathname.endsWith('.pem')
}

const certificateCache = new Map<string, Promise<string>>()

async function downloadCertificate(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5_000) })
  if (!response.ok) throw new Error(`certificate download failed: ${response.status}`)
  const pem = await response.text()
  if (!pem.includes('BEGIN CERTIFICATE')) throw new Error('not a certificate')
  return pem
}

export const amazonSnsTrust: SnsTrust = {
  isTrustedCertificateUrl: isAmazonSnsCertificateUrl,
  isTrustedSubscribeUrl: isAmazonSnsUrl,
  fetchCertificate(url) {
    const key = url.toString()
    let pending = certificateCache.get(key)
    if (!pending) {
      pending = downloadCertificate(url)
      pending.catch(() => certificateCache.delete(key))
      certificateCache.set(key, pending)
    }
    return pending
  },
}

/** The canonical string SNS signs: selected fields as `Name\nvalue\n`, in this order, absent ones skipped. */
export function snsStringToSign(message: SnsMessage): string {
  const fields: (keyof SnsMessage)[] =
    message.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type']
  return fields
    .filter((field) => message[field] !== undefined)
    .map((field) => `${field}\n${message[field]}\n`)
    .join('')
}

/** True only for a message signed by the certificate at a trusted URL. Never throws for bad input. */
export async function verifySnsSignature(message: SnsMessage, trust: SnsTrust): Promise<boolean> {
  let url: URL
  try {
    url = new URL(message.SigningCertURL)
  } catch {
    return false
  }
  if (!trust.isTrustedCertificateUrl(url)) return false
  try {
    const certificate = await trust.fetchCertificate(url)
    const algorithm = message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256'
    return verify(
      algorithm,
      Buffer.from(snsStringToSign(message)),
      certificate,
      Buffer.from(message.Signature, 'base64'),
    )
  } catch {
    return false
  }
}
