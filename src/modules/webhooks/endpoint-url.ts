import { isIP } from 'node:net'
import { AppError } from '../../errors.js'
import { checkAddress, describeAddressRange } from '../workflows/webhook/index.js'

function badUrl(message: string): AppError {
  return new AppError('VALIDATION_ERROR', 'Request validation failed', {
    errors: [{ field: 'url', message, code: 'custom' }],
  })
}

/**
 * The workflow WEBHOOK step's address rule, applied when an endpoint is saved: an http(s) URL without credentials
 * whose host is not a private, loopback or link-local address (private and loopback allowed with
 * WEBHOOK_ALLOW_PRIVATE). A host name is checked again on every connection, by the step's own agent, since what it
 * resolves to can change; here only IP literals and `localhost` are known for sure. Returns the URL as saved.
 */
export function checkEndpointUrl(text: string, options: { allowPrivate: boolean }): string {
  const url = new URL(text)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badUrl('url must be an http:// or https:// URL')
  if (url.username !== '' || url.password !== '') {
    throw badUrl('url must not carry credentials; a receiver checks the webhook-signature header instead')
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  const addresses = isIP(host) !== 0 ? [host] : host === 'localhost' || host.endsWith('.localhost') ? ['127.0.0.1'] : []
  for (const address of addresses) {
    const verdict = checkAddress(address, options)
    if (!verdict.allowed) {
      throw badUrl(
        `url host ${url.hostname} is not a public address (${describeAddressRange(verdict.range)}); ` +
          'set WEBHOOK_ALLOW_PRIVATE=true to deliver to private and loopback addresses',
      )
    }
  }
  return url.href
}
