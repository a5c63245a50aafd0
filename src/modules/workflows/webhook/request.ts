import { isIP } from 'node:net'
import { errors as undiciErrors, request as undiciRequest } from 'undici'
import type { DnsResolver } from '../../../mail/dns.js'
import { type AddressPolicy, addressPolicyFor, describeRange } from './address-policy.js'
import { webhookAgent } from './agent.js'
import type { WebhookMethod } from './config.js'
import { WebhookError } from './errors.js'
import type { WebhookRequest } from './render.js'

export type SendWebhookOptions = {
  /** Reuse one: connections are pooled per resolver (one undici Agent each), and its DNS cache helps too. */
  resolver: DnsResolver
  /** WEBHOOK_ALLOW_PRIVATE: also deliver to loopback, private, CGNAT and unique-local addresses. */
  allowPrivate: boolean
  /** For the whole delivery: every redirect and reading the answer included. */
  timeoutMs?: number
  maxRedirects?: number
}

export type WebhookResult = {
  /** 2xx; anything else fails the step with `status` and `responsePreview`. */
  ok: boolean
  status: number
  /** After redirects. */
  url: string
  /** After redirects: a 303 turns POST into GET. */
  method: WebhookMethod
  /** The first characters of the answer's body (decoded as UTF-8). */
  responsePreview: string
  redirects: number
}

const defaultTimeoutMs = 10_000
const defaultMaxRedirects = 5
/** Read this much of an answer at most: enough for the preview and to let a normal answer finish. */
const maxResponseBytes = 64 * 1024
const previewCharacters = 1_000

const redirectStatuses = new Set([301, 302, 303, 307, 308])
/** Credentials meant for the configured host; a redirect to another origin does not get them (as fetch). */
const originBoundHeaders = ['authorization', 'cookie']

/**
 * Makes one webhook request: no retries, redirects followed by hand (each hop checked again), at most
 * `maxResponseBytes` of the answer read. Resolves with the answer, whatever its status; throws WebhookError
 * when there is no answer (blocked address, DNS, connection, timeout, redirects).
 */
export function sendWebhook(request: WebhookRequest, options: SendWebhookOptions): Promise<WebhookResult> {
  const { allowPrivate, ...rest } = options
  return deliverWebhook(request, { ...rest, policy: addressPolicyFor(allowPrivate) })
}

export type DeliverWebhookOptions = Omit<SendWebhookOptions, 'allowPrivate'> & { policy: AddressPolicy }

/** `sendWebhook` with the address rule given directly; tests use it to let a first hop through. */
export async function deliverWebhook(request: WebhookRequest, options: DeliverWebhookOptions): Promise<WebhookResult> {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs
  const maxRedirects = options.maxRedirects ?? defaultMaxRedirects
  const agent = webhookAgent(options.resolver, options.policy)
  const signal = AbortSignal.timeout(timeoutMs)
  let hop = request
  let url = parseHopUrl(request.url)
  let redirects = 0
  try {
    for (;;) {
      checkLiteralHost(url, options.policy)
      const response = await undiciRequest(url, {
        method: hop.method,
        headers: hop.headers,
        body: hop.body,
        dispatcher: agent,
        signal,
      })
      const location = firstValue(response.headers.location)
      if (!redirectStatuses.has(response.statusCode) || location === undefined) {
        const responsePreview = await readPreview(response.body)
        const ok = response.statusCode >= 200 && response.statusCode < 300
        return { ok, status: response.statusCode, url: url.href, method: hop.method, responsePreview, redirects }
      }
      // Drains a short redirect body so the connection can be reused; a long one is cut.
      await response.body.dump({ limit: maxResponseBytes }).catch(() => undefined)
      if (redirects >= maxRedirects) {
        throw new WebhookError(
          'too_many_redirects',
          `webhook to ${request.url} was redirected more than ${maxRedirects} times (last to ${location})`,
        )
      }
      redirects++
      const next = parseHopUrl(location, url)
      hop = redirectedRequest(hop, response.statusCode, url, next)
      url = next
    }
  } catch (err) {
    throw toWebhookError(err, signal, url, timeoutMs)
  }
}

function parseHopUrl(location: string, base?: URL): URL {
  const url = URL.canParse(location, base?.href) ? new URL(location, base) : undefined
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const what = base ? `redirect from ${base.host} to ${location}` : location
    throw new WebhookError('bad_url', `webhook ${what} is not an http(s) URL`)
  }
  return url
}

/** Node connects to an IP-literal host without a lookup, so the agent's check would never see it. */
function checkLiteralHost(url: URL, policy: AddressPolicy): void {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) === 0) return
  const verdict = policy(host)
  if (!verdict.allowed) {
    throw new WebhookError(
      'blocked_address',
      `webhook host ${host} is not a public address (${describeRange(verdict.range)})`,
    )
  }
}

/** 301, 302 and 303 continue as a GET without body; 307 and 308 repeat the request as it was. */
function redirectedRequest(hop: WebhookRequest, status: number, from: URL, to: URL): WebhookRequest {
  const headers = { ...hop.headers }
  if (from.origin !== to.origin) for (const name of originBoundHeaders) delete headers[name]
  if (status === 307 || status === 308) return { ...hop, url: to.href, headers }
  delete headers['content-type']
  return { url: to.href, method: 'GET', headers }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** Stops reading (and so drops the connection) past `maxResponseBytes`: a 50 MB answer costs 64 KiB. */
async function readPreview(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    const part = chunk.subarray(0, maxResponseBytes - size)
    chunks.push(part)
    size += part.length
    if (size >= maxResponseBytes) break
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks))
  return Array.from(text.slice(0, previewCharacters * 2))
    .slice(0, previewCharacters)
    .join('')
}

function toWebhookError(err: unknown, signal: AbortSignal, url: URL, timeoutMs: number): WebhookError {
  if (err instanceof WebhookError) return err
  const timedOut =
    signal.aborted ||
    err instanceof undiciErrors.ConnectTimeoutError ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError
  if (timedOut) return new WebhookError('timeout', `webhook to ${url.host} got no answer within ${timeoutMs} ms`)
  return new WebhookError('connection', `webhook to ${url.host} failed: ${describeFailure(err)}`)
}

/** `ECONNREFUSED 127.0.0.1:4000`-style detail: the code and the first line, never a stack. */
function describeFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const cause = err.cause instanceof Error ? err.cause : undefined
  const message = (err.message || cause?.message || err.name).split('\n')[0] ?? err.name
  return message
}
