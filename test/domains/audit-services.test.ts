import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { SESv2Client } from '@aws-sdk/client-sesv2'
import { generate } from 'selfsigned'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Config } from '../../src/config.js'
import { domains } from '../../src/db/schema/index.js'
import { createSesMailFrom } from '../../src/mail/aws/ses-mail-from.js'
import { createResolver } from '../../src/mail/dns.js'
import { type AuditDepsOptions, createAuditDeps } from '../../src/modules/domains/audit/deps.js'
import type { Finding } from '../../src/modules/domains/audit/schemas.js'
import { verifyDomain } from '../../src/modules/domains/check.js'
import { verifyPendingDomainsJob } from '../../src/modules/domains/jobs.js'
import { setReturnPath } from '../../src/modules/domains/return-path.js'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import type { TestDnsServer } from '../helpers/dns-server.js'
import { addDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { unusedPort } from '../helpers/emails.js'
import { type Account, createAccount } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'
import { startSilentDnsServer } from '../helpers/silent-dns.js'

// What the HTTP routes cannot reach in this server: SES, an https PUBLIC_URL, a DNS server that never answers.
let env: ServerWithDns
let server: TestServer
let dns: TestDnsServer
let account: Account

let ses: Server
const sesRequests: { method: string; path: string; body: Record<string, unknown> }[] = []
let sesReply: { status: number; type?: string; body: object } = { status: 200, body: {} }

beforeAll(async () => {
  env = await startServerWithDns()
  ;({ server, dns } = env)
  account = await createAccount(server)
  // SES's API as the SDK speaks it, answering what the test sets.
  ses = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString()
      sesRequests.push({ method: request.method ?? '', path: request.url ?? '', body: JSON.parse(text || '{}') })
      response.writeHead(sesReply.status, {
        'content-type': 'application/json',
        ...(sesReply.type ? { 'x-amzn-errortype': sesReply.type } : {}),
      })
      response.end(JSON.stringify(sesReply.body))
    })
  })
  ses.listen(0, '127.0.0.1')
  await once(ses, 'listening')
})
afterAll(async () => {
  await env?.close()
  await new Promise<void>((resolve) => ses.close(() => resolve()))
})

let counter = 0
function uniqueDomain(): string {
  counter++
  return `s${counter}-${process.pid}.services.test`
}

const sesConfig = (): Config => ({ ...server.config, mailTransport: 'ses', sesRegion: 'eu-west-1', smtpUrl: undefined })
const feedbackHost = 'feedback-smtp.eu-west-1.amazonses.com'

function sesClient(): SESv2Client {
  return new SESv2Client({
    endpoint: `http://127.0.0.1:${(ses.address() as AddressInfo).port}`,
    region: 'eu-west-1',
    maxAttempts: 1,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
  })
}

async function check(domain: DomainView, config: Config, options: AuditDepsOptions = {}): Promise<DomainView> {
  const deps = createAuditDeps(config, { resolver: createResolver(config, { cacheTtlMs: 0 }), ...options })
  return verifyDomain(server.ctx.db, config, deps, account.project.id, domain.id)
}

const about = (view: DomainView, area: string): Finding[] =>
  view.audit?.findings.filter((item) => item.code.startsWith(area)) ?? []

describe('domain audit: when DNS does not answer', () => {
  it('dkim_, spf_, dmarc_ and bounce_mx_lookup_failed: warnings within the time bound, never a hang', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const silent = await startSilentDnsServer()
    try {
      const resolver = createResolver({ dnsServers: [silent.address] }, { timeoutMs: 200, cacheTtlMs: 0 })
      const started = Date.now()
      const checked = await check(domain, server.config, { resolver })
      expect(Date.now() - started).toBeLessThan(5_000)
      const codes = checked.audit?.findings.map((item) => [item.code, item.severity])
      for (const code of [
        'dkim_lookup_failed',
        'spf_lookup_failed',
        'dmarc_lookup_failed',
        'bounce_mx_lookup_failed',
      ]) {
        expect(codes).toContainEqual([code, 'warning'])
      }
      // Unknown is not an error: the pre-send check does not block on a DNS outage.
      expect(checked.audit?.findings.filter((item) => item.severity === 'error').map((item) => item.code)).toEqual([])
    } finally {
      silent.close()
    }
  })

  it('spf_lookup_failed: an include whose server does not answer stops the walk there', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    // Delegation is not modelled by the test server, so the include's silence comes from the deadline instead.
    dns.set(domain.domain, 'TXT', [`v=spf1 include:slow.${domain.domain} ~all`])
    dns.set(`slow.${domain.domain}`, 'TXT', ['v=spf1 ip4:127.0.0.1 -all'])
    const deps = createAuditDeps(server.config, { resolver: createResolver(server.config, { cacheTtlMs: 0 }) })
    const checked = await verifyDomain(
      server.ctx.db,
      server.config,
      { ...deps, spfBudgetMs: -1 },
      account.project.id,
      domain.id,
    )
    const [found] = about(checked, 'spf_')
    expect(found).toMatchObject({ code: 'spf_lookup_failed', severity: 'warning' })
    expect(found?.reason).toContain(`the lookup of slow.${domain.domain} failed or took too long`)
  })
})

describe('domain audit: with SES', () => {
  it('spf_ok and bounce_mx_ok at the MAIL FROM subdomain; return_path_missing is a warning', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const mailFrom = `mail.${domain.domain}`
    dns.set(mailFrom, 'TXT', ['v=spf1 include:amazonses.com ~all'])
    dns.set('amazonses.com', 'TXT', ['v=spf1 ip4:199.255.192.0/22 -all'])
    dns.set(mailFrom, 'MX', [{ exchange: feedbackHost, priority: 10 }])
    const checked = await check(domain, sesConfig())
    expect(about(checked, 'spf_')).toEqual([
      {
        code: 'spf_ok',
        severity: 'ok',
        reason: `The SPF record of ${mailFrom} authorises Amazon SES, with 1 of 10 DNS lookups.`,
      },
    ])
    expect(about(checked, 'bounce_mx_')[0]?.code).toBe('bounce_mx_ok')
    const [missing] = about(checked, 'return_path_')
    expect(missing).toMatchObject({ code: 'return_path_missing', severity: 'warning' })
    expect(missing?.reason).toContain('SPF passes for Amazon, not for')
  })

  it('spf_not_authorized names include:amazonses.com; bounce_mx_wrong wants the feedback endpoint', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const mailFrom = `mail.${domain.domain}`
    dns.set(mailFrom, 'TXT', ['v=spf1 mx -all'])
    dns.set(mailFrom, 'MX', [{ exchange: `mx.${domain.domain}`, priority: 10 }])
    const checked = await check(domain, sesConfig())
    expect(about(checked, 'spf_')[0]).toMatchObject({
      code: 'spf_not_authorized',
      record: { type: 'TXT', name: mailFrom, value: 'v=spf1 include:amazonses.com mx -all' },
    })
    const [wrong] = about(checked, 'bounce_mx_')
    expect(wrong).toMatchObject({
      code: 'bounce_mx_wrong',
      severity: 'error',
      record: { type: 'MX', name: mailFrom, value: feedbackHost, priority: 10 },
    })
  })

  it('hands a verified return path to SES as the identity MAIL FROM domain, once, and removes it on request', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const returnPath = `bounce.${domain.domain}`
    const setSesMailFrom = createSesMailFrom({ client: sesClient() })
    await setReturnPath(server.ctx.db, sesConfig(), { setSesMailFrom }, account.project.id, domain.id, {
      domain: returnPath,
    })
    dns.set(returnPath, 'TXT', ['v=spf1 include:amazonses.com ~all'])
    dns.set(returnPath, 'MX', [{ exchange: feedbackHost, priority: 10 }])
    sesReply = { status: 200, body: {} }
    sesRequests.length = 0

    const checked = await check(domain, sesConfig(), { setSesMailFrom })
    expect(checked.returnPath?.verified).toBe(true)
    expect(about(checked, 'return_path_')).toEqual([
      {
        code: 'return_path_ok',
        severity: 'ok',
        reason: `SES sends ${domain.domain}'s mail with MAIL FROM at ${returnPath}, which aligns with the From.`,
      },
    ])
    expect(sesRequests).toEqual([
      {
        method: 'PUT',
        path: `/v2/email/identities/${domain.domain}/mail-from`,
        body: { MailFromDomain: returnPath, BehaviorOnMxFailure: 'USE_DEFAULT_VALUE' },
      },
    ])
    await check(domain, sesConfig(), { setSesMailFrom })
    expect(sesRequests).toHaveLength(1)

    await setReturnPath(server.ctx.db, sesConfig(), { setSesMailFrom }, account.project.id, domain.id, { domain: null })
    expect(sesRequests[1]).toEqual({ method: 'PUT', path: `/v2/email/identities/${domain.domain}/mail-from`, body: {} })
  })

  it('return_path_ses_failed: SES refusing the MAIL FROM domain is an error, and it stays unused', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const returnPath = `bounce.${domain.domain}`
    const setSesMailFrom = createSesMailFrom({ client: sesClient() })
    await setReturnPath(server.ctx.db, sesConfig(), { setSesMailFrom }, account.project.id, domain.id, {
      domain: returnPath,
    })
    dns.set(returnPath, 'TXT', ['v=spf1 include:amazonses.com ~all'])
    dns.set(returnPath, 'MX', [{ exchange: feedbackHost, priority: 10 }])
    sesReply = { status: 404, type: 'NotFoundException', body: { message: 'Identity does not exist.' } }
    try {
      const checked = await check(domain, sesConfig(), { setSesMailFrom })
      expect(checked.returnPath?.verified).toBe(false)
      const [failed] = about(checked, 'return_path_')
      expect(failed).toMatchObject({ code: 'return_path_ses_failed', severity: 'error' })
      expect(failed?.reason).toContain('NotFoundException: Identity does not exist.')
    } finally {
      sesReply = { status: 200, body: {} }
    }
  })
})

describe('domain audit: the tracking host', () => {
  let tracking: HttpsServer
  let ca: string

  beforeAll(async () => {
    const pems = await generate([{ name: 'commonName', value: 'track.services.test' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'subjectAltName', altNames: [{ type: 2, value: 'track.services.test' }] },
      ],
    })
    ca = pems.cert
    tracking = createHttpsServer({ key: pems.private, cert: pems.cert }, (_request, response) => {
      response.writeHead(404).end()
    })
    tracking.listen(0, '127.0.0.1')
    await once(tracking, 'listening')
    dns.set('track.services.test', 'A', ['127.0.0.1'])
  })
  afterAll(() => new Promise<void>((resolve) => tracking.close(() => resolve())))

  it('tracking_ok: PUBLIC_URL answers over https with a certificate the server trusts', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const port = (tracking.address() as AddressInfo).port
    const config = { ...server.config, publicUrl: `https://track.services.test:${port}` }
    expect(about(await check(domain, config, { trackingCa: ca }), 'tracking_')).toEqual([
      {
        code: 'tracking_ok',
        severity: 'ok',
        reason: `Tracking and unsubscribe links point to https://track.services.test:${port}, which answers with HTTP 404.`,
      },
    ])
  })

  it('tracking_unreachable: a certificate no one vouches for, or no server at all', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const port = (tracking.address() as AddressInfo).port
    const untrusted = await check(domain, { ...server.config, publicUrl: `https://track.services.test:${port}` })
    const [found] = about(untrusted, 'tracking_')
    expect(found).toMatchObject({ code: 'tracking_unreachable', severity: 'error' })
    expect(found?.reason).toMatch(/certificate/)

    const closed = await check(domain, { ...server.config, publicUrl: `https://127.0.0.1:${await unusedPort()}` })
    expect(about(closed, 'tracking_')[0]?.reason).toContain('ECONNREFUSED')
  })
})

describe('domain audit: in the background', () => {
  it('the 5-minute job audits pending domains and stores the result', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    await server.ctx.boss.send(verifyPendingDomainsJob.name, {})
    await vi.waitFor(
      async () => {
        const rows = await server.ctx.db.select({ id: domains.id, audit: domains.audit }).from(domains)
        const audit = rows.find((row) => row.id === domain.id)?.audit
        expect(audit?.findings.map((item) => item.code)).toContain('dkim_missing')
      },
      { timeout: 15_000, interval: 100 },
    )
  })
})
