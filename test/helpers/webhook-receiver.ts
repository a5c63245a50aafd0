import type { IncomingHttpHeaders } from 'node:http'
import { Webhook } from 'standardwebhooks'
import type { HttpReceiver } from './http-receiver.js'

type Received = HttpReceiver['requests'][number]

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name]
  if (typeof value !== 'string') throw new Error(`the delivery has no ${name} header`)
  return value
}

/**
 * Verifies one delivery with the Standard Webhooks reference implementation (`standardwebhooks`), as a receiver
 * would: throws unless the signature header holds a valid `v1` signature by `secret` over this id, timestamp
 * (within its 5 minutes) and body. Returns the parsed payload.
 */
export function verifyDelivery(secret: string, request: Received): unknown {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': header(request.headers, 'webhook-id'),
    'webhook-timestamp': header(request.headers, 'webhook-timestamp'),
    'webhook-signature': header(request.headers, 'webhook-signature'),
  })
}
