import { createHmac, randomBytes } from 'node:crypto'
import { openSealedText, sealText } from '../../db/sealed-text.js'

const secretPrefix = 'whsec_'
/** Standard Webhooks asks for 24 to 64 bytes; 32 is what HMAC-SHA256 can use in full. */
const secretBytes = 32

/** A new signing secret: `whsec_` and the base64 of random bytes, as the Standard Webhooks libraries take it. */
export function newWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(secretBytes).toString('base64')}`
}

/**
 * The `webhook-signature` header (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed
 * with the secret's decoded bytes, one space-separated entry per secret (two during a rotation's overlap).
 */
export function webhookSignature(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(secretPrefix.length), 'base64')
      const digest = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
      return `v1,${digest}`
    })
    .join(' ')
}

const sealPurpose = 'webhook-secret'

/** The secret as stored: sealed under the server's SECRET and bound to its endpoint, so a database copy alone cannot sign. */
export function sealWebhookSecret(serverSecret: string, endpointId: string, secret: string): string {
  return sealText(serverSecret, sealPurpose, secret, endpointId)
}

export function openWebhookSecret(serverSecret: string, endpointId: string, sealed: string): string {
  return openSealedText(serverSecret, sealPurpose, sealed, endpointId)
}
