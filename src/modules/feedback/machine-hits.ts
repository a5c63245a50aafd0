/**
 * Tells machine opens and clicks from people's. Every hit is still recorded and still gets its pixel or redirect;
 * a machine hit is only kept out of the human counts (opens, clicks, first-open moments, OPENED/CLICKED status,
 * open and click rates). Signals, their sources and the choices made: docs/decisions/0012-feedback-accuracy.md.
 * Everything here is string tests on precompiled patterns and the locked email row: the pixel is hit a lot.
 */

const machineReasons = [
  /** A HEAD request: link checkers and prefetchers, never a person's browser or mail app. */
  'head_request',
  /** No User-Agent header at all: every browser and mail client sends one. */
  'no_user_agent',
  /** Apple Mail Privacy Protection: Apple's proxy loads every image when the message is downloaded. */
  'apple_mpp',
  /** A mail provider's image proxy (Gmail, Yahoo) fetching right after delivery, before anyone could read it. */
  'proxy_prefetch',
  /** A security gateway, link scanner, preview bot or HTTP library by its User-Agent. */
  'scanner',
  /** A click within `scanWindowMs` of delivery: pre-delivery and delivery-time link detonation. */
  'clicked_on_delivery',
  /** A click on another link within `burstWindowMs` of the previous click: scanners follow every link at once. */
  'click_burst',
] as const
export type MachineReason = (typeof machineReasons)[number]

/** What the request alone says; the timing rules need the email row and are applied by `machineReasonOf`. */
export type HitClient = {
  /** Set when the request alone proves a machine. */
  machine?: MachineReason
  /** Fetched through a mail provider's image proxy: a person opening, unless it comes right after delivery. */
  proxied?: boolean
}

export type HitRequest = {
  method: string
  /** The User-Agent header; null when the request had none, undefined when the reporter does not say (SES). */
  userAgent: string | null | undefined
  /** The client address (fastify's `request.ip`, behind `TRUST_PROXY`), when known. */
  ip: string | undefined
}

/**
 * Scanners fire within seconds of the message reaching the gateway; a person needs longer to be notified, open
 * the message and pick a link. 15 s: long enough for the delivery-time sandboxes of Microsoft Defender, Mimecast
 * and Proofpoint, which come a few seconds after the handoff; short enough that a person waiting for a tracked
 * transactional message (a sign-in link) rarely clicks inside it, and then only their rate is affected.
 */
const scanWindowMs = 15_000

/** Nobody clicks two different links of one message within 2 s; a scanner following every link does. */
const burstWindowMs = 2_000

// Apple Mail Privacy Protection fetches with exactly this User-Agent (no platform, no engine), from Apple's
// address block 17.0.0.0/8 or its relay partners' egress addresses.
const appleProxyAgent = 'Mozilla/5.0'
// Apple's own address space: 17.0.0.0/8 (IPv4, also as IPv4-mapped IPv6) and 2620:149::/32, 2a01:b740::/32.
const appleAddress = /^(?:::ffff:)?17\.|^2620:149:|^2a01:b740:/i

// Image proxies that fetch when the recipient opens the message (and may cache later opens).
const imageProxyAgent = /GoogleImageProxy|ggpht\.com|YahooMailProxy/i

// Security gateways and link scanners that say who they are, link-preview bots, crawlers and HTTP libraries.
const scannerAgent = new RegExp(
  [
    'mimecast',
    'proofpoint',
    'barracuda',
    'bitdefender',
    'forcepoint',
    'sophos',
    'trend ?micro',
    'symantec',
    'mcafee',
    'trellix',
    'fireeye',
    'fortiguard',
    'ironport',
    'zscaler',
    'cloudmark',
    'spamtitan',
    'avanan',
    'check ?point',
    'microsoft office (?:existence|protocol) discovery',
    'bingpreview',
    'skypeuripreview',
    'facebookexternalhit',
    'whatsapp',
    'googlebot',
    'bot[/;)-]',
    'crawler',
    'spider',
    'headlesschrome',
    'phantomjs',
    '\\+https?://',
    '^curl/',
    '^wget/',
    'python-requests',
    'python-urllib',
    'aiohttp',
    'go-http-client',
    '^java/',
    'apache-httpclient',
    'libwww-perl',
    'scrapy',
    'node-fetch',
    '^axios/',
  ].join('|'),
  'i',
)

// Office's own requests: Outlook on Windows loads images as `ms-office; MSOffice 16` (a person opening), but a
// click is followed by a browser, so the same agent on a click is Office checking the link first.
const officeAgent = /ms-office|MSOffice/i

/** The request-only verdict on an open or click: HEAD, missing agent, Apple's proxy, scanners, image proxies. */
export function classifyHitRequest(kind: 'open' | 'click', request: HitRequest): HitClient {
  if (request.method === 'HEAD') return { machine: 'head_request' }
  const agent = request.userAgent
  if (agent === null || agent?.trim() === '') return { machine: 'no_user_agent' }
  // A person's click never goes through Apple's image proxy, so these are opens only; its address alone is not
  // enough for a click (Apple's own staff browse from it too).
  if (kind === 'open' && (agent === appleProxyAgent || (request.ip !== undefined && appleAddress.test(request.ip)))) {
    return { machine: 'apple_mpp' }
  }
  if (agent === undefined) return {}
  if (scannerAgent.test(agent) || (kind === 'click' && officeAgent.test(agent))) return { machine: 'scanner' }
  if (kind === 'open' && imageProxyAgent.test(agent)) return { proxied: true }
  return {}
}

/** What the timing rules read from the email row (locked by the caller). */
export type HitTimes = {
  sentAt: Date | null
  deliveredAt: Date | null
  lastClickedAt: Date | null
  lastClickedLink: string | null
}

/**
 * The machine reason of a hit, or undefined for a person: the request's verdict first, then the timing rules.
 * Delivery is the provider's delivery report when there is one, the handoff otherwise; an email not yet recorded
 * as sent (the outcome recorder writes every ~20 ms) was handed over a moment ago.
 */
export function machineReasonOf(
  hit: { kind: 'open' | 'click'; at: Date; link?: string; client?: HitClient },
  email: HitTimes,
): MachineReason | undefined {
  if (hit.client?.machine) return hit.client.machine
  const delivered = email.deliveredAt ?? email.sentAt
  // Either side of delivery: a provider's clock (SES timestamps) may run a little behind ours.
  const onDelivery = delivered === null || Math.abs(hit.at.getTime() - delivered.getTime()) < scanWindowMs
  if (hit.kind === 'open') return hit.client?.proxied && onDelivery ? 'proxy_prefetch' : undefined
  if (onDelivery) return 'clicked_on_delivery'
  const last = email.lastClickedAt
  if (last && email.lastClickedLink !== hit.link && Math.abs(hit.at.getTime() - last.getTime()) < burstWindowMs) {
    return 'click_burst'
  }
  return undefined
}
