/**
 * Why a webhook request was not made or got no answer:
 * - `bad_url`: the rendered URL (or a redirect's Location) is not an absolute http(s) URL
 * - `header_injection`: a rendered header value contains CR, LF or NUL
 * - `invalid_header`: a rendered header value holds another character HTTP headers cannot carry
 * - `blocked_address`: the host is, or resolves to, an address the policy refuses
 * - `unresolvable_host`: the host name has no A/AAAA records, or DNS gave no usable answer
 * - `too_many_redirects`: more than the allowed redirects
 * - `timeout`: no complete answer within the time limit
 * - `connection`: the connection failed or broke (refused, reset, TLS)
 */
export type WebhookErrorReason =
  | 'bad_url'
  | 'header_injection'
  | 'invalid_header'
  | 'blocked_address'
  | 'unresolvable_host'
  | 'too_many_redirects'
  | 'timeout'
  | 'connection'

/** The message is written for the workflow step's error: it names the host or address, never a stack. */
export class WebhookError extends Error {
  override readonly name = 'WebhookError'

  constructor(
    readonly reason: WebhookErrorReason,
    message: string,
  ) {
    super(message)
  }
}
