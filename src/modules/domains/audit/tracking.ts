import { isIP, type LookupFunction } from 'node:net'
import type { DnsResolver } from '../../../mail/dns.js'
import { finding } from './codes.js'
import type { Finding } from './schemas.js'

// Not an ES module import of node:https: that builds a view of all of node:http's exports too, whose WebSocket
// and friends load Node's bundled undici at every start.
const { request } = process.getBuiltinModule('node:https')

type HttpsAnswer = { reached: true; status: number } | { reached: false; error: string }
export type HttpsProbe = (url: URL) => Promise<HttpsAnswer>

export type HttpsProbeOptions = {
  timeoutMs?: number
  /** Certificates to trust besides the system's (tests' own authority). */
  ca?: string
  /** How long one answer is reused: every domain's audit asks about the same PUBLIC_URL. */
  cacheTtlMs?: number
}

/** Host names go through our resolver, so DNS_SERVERS applies here as to every other lookup. */
function lookupWith(resolver: DnsResolver): LookupFunction {
  return (hostname, options, callback) => {
    void Promise.all([resolver.a(hostname), resolver.aaaa(hostname)]).then(([v4, v6]) => {
      const addresses = [
        ...v4.records.map((address) => ({ address, family: 4 })),
        ...v6.records.map((address) => ({ address, family: 6 })),
      ]
      const [first] = addresses
      if (!first) {
        callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0)
      } else if (options.all) {
        callback(null, addresses)
      } else {
        callback(null, first.address, first.family)
      }
    })
  }
}

function get(url: URL, resolver: DnsResolver, timeoutMs: number, ca: string | undefined): Promise<HttpsAnswer> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const call = request(
      {
        host,
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        ...(isIP(host) ? {} : { servername: host, lookup: lookupWith(resolver) }),
        ...(ca ? { ca } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        response.resume()
        resolve({ reached: true, status: response.statusCode ?? 0 })
      },
    )
    call.on('error', (err) => {
      const reason =
        err.name === 'AbortError' || err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : err.message
      resolve({ reached: false, error: reason })
    })
    call.end()
  })
}

export function createHttpsProbe(resolver: DnsResolver, options: HttpsProbeOptions = {}): HttpsProbe {
  const timeoutMs = options.timeoutMs ?? 5_000
  const cacheTtlMs = options.cacheTtlMs ?? 60_000
  const cache = new Map<string, { expiresAt: number; answer: Promise<HttpsAnswer> }>()
  return (url) => {
    const key = url.toString()
    const cached = cache.get(key)
    if (cached && cached.expiresAt > Date.now()) return cached.answer
    const answer = get(url, resolver, timeoutMs, options.ca)
    cache.set(key, { expiresAt: Date.now() + cacheTtlMs, answer })
    return answer
  }
}

/** The https form of PUBLIC_URL: an http one is tried on the standard https port. */
function httpsUrlOf(publicUrl: URL): URL {
  if (publicUrl.protocol === 'https:') return publicUrl
  const url = new URL(publicUrl)
  url.protocol = 'https:'
  url.port = ''
  return url
}

/**
 * Tracking and unsubscribe links point to PUBLIC_URL. Links over plain http, or to a host that does not answer over
 * https, look like phishing to filters and break for readers.
 */
export async function auditTracking(publicUrl: string, probe: HttpsProbe): Promise<Finding> {
  const base = new URL(publicUrl)
  const url = httpsUrlOf(base)
  const answer = await probe(url)
  const outcome = answer.reached ? `answers with HTTP ${answer.status}` : `does not answer: ${answer.error}`
  if (base.protocol !== 'https:') {
    const reason = `Tracking and unsubscribe links point to ${base.origin}, over plain http, which filters distrust and browsers flag. ${url.origin} ${outcome}. Set PUBLIC_URL to an https address.`
    return finding('tracking_not_https', reason)
  }
  if (!answer.reached || answer.status >= 500) {
    const reason = `Tracking and unsubscribe links point to ${url.origin}, which ${outcome}. Readers' clicks and unsubscribes fail, and filters count links that do not resolve against you.`
    return finding('tracking_unreachable', reason)
  }
  return finding('tracking_ok', `Tracking and unsubscribe links point to ${url.origin}, which ${outcome}.`)
}
