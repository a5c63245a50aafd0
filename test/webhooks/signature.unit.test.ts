import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { newWebhookSecret, webhookSignature } from '../../src/modules/webhooks/signature.js'

describe('the webhook-signature header', () => {
  it('is what the reference implementation signs, one entry per secret', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()]
    const body = '{"type":"email.sent","data":{"event":{"subject":"Ünïcode ✓"}}}'
    const timestamp = new Date(1_800_000_000_000)
    const id = '3b0e7c2a-5d1f-4f4e-9a51-0c2b1d3e4f50'
    const seconds = timestamp.getTime() / 1000
    expect(webhookSignature([current], id, seconds, body)).toBe(new Webhook(current).sign(id, timestamp, body))
    expect(webhookSignature([current, previous], id, seconds, body)).toBe(
      `${new Webhook(current).sign(id, timestamp, body)} ${new Webhook(previous).sign(id, timestamp, body)}`,
    )
  })

  it('makes secrets of 32 random bytes', () => {
    const secrets = new Set(Array.from({ length: 20 }, newWebhookSecret))
    expect(secrets.size).toBe(20)
    for (const secret of secrets) expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32)
  })
})
