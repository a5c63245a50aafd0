import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { domains } from '../../src/db/schema/index.js'
import type { Finding } from '../../src/modules/domains/audit/schemas.js'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import type { TestDnsServer } from '../helpers/dns-server.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { expectSecretKeyRequired, notFoundBody } from '../helpers/scoping.js'
import type { TestServer } from '../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

// The relay is the sink on 127.0.0.1: a return path's SPF must name 127.0.0.1.
let sink: SmtpSink
let env: ServerWithDns
let server: TestServer
let dns: TestDnsServer
let account: Account

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  ;({ server, dns } = env)
  account = await createAccount(server)
})
afterAll(async () => {
  await env?.close()
  await sink?.close()
})

let counter = 0
function uniqueDomain(): string {
  counter++
  return `r${counter}-${process.pid}.return-path.test`
}

function setReturnPath(domainId: string, domain: string | null, who: Account = account) {
  return server.app.inject({
    method: 'PUT',
    url: `/domains/${domainId}/return-path`,
    headers: bearer(who.secretKey),
    payload: { domain },
  })
}

async function check(domainId: string): Promise<DomainView> {
  const response = await server.app.inject({
    method: 'GET',
    url: `/domains/${domainId}/verify`,
    headers: bearer(account.secretKey),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json<DomainView>()
}

const findingsAbout = (view: DomainView, area: string): Finding[] =>
  view.audit?.findings.filter((item) => item.code.startsWith(area)) ?? []

/** The return path's SPF (naming the relay) and MX, as the owner publishes them. */
function publishReturnPath(returnPath: string) {
  dns.set(returnPath, 'TXT', ['v=spf1 ip4:127.0.0.1 -all'])
  dns.set(returnPath, 'MX', [{ exchange: `mx.${returnPath}`, priority: 10 }])
}

async function send(from: string) {
  const response = await server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: bearer(account.secretKey),
    payload: { to: 'reader@example.org', subject: 'Hello', body: '<p>Hello</p>', from },
  })
  expect(response.statusCode, response.body).toBe(200)
}

describe('return path: accepts', () => {
  it('is set pending, audited at its own name, and verified once its MX and SPF records check out', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const returnPath = `bounce.${domain.domain}`
    const set = await setReturnPath(domain.id, returnPath.toUpperCase())
    expect(set.statusCode, set.body).toBe(200)
    expect(set.json<DomainView>().returnPath).toEqual({ domain: returnPath, verified: false, verifiedAt: null })
    // SPF now belongs at the return path, the envelope domain receivers judge.
    expect(set.json<DomainView>().records.find((record) => record.purpose === 'SPF')).toMatchObject({
      name: returnPath,
      value: 'v=spf1 ip4:127.0.0.1 ~all',
    })

    const pending = await check(domain.id)
    expect(pending.returnPath?.verified).toBe(false)
    expect(findingsAbout(pending, 'return_path_')).toEqual([
      {
        code: 'return_path_pending',
        severity: 'warning',
        reason: `${returnPath} is the return-path domain, but its MX and SPF records do not check out yet (see the findings above). Until they do, mail goes out with MAIL FROM at ${domain.domain}.`,
      },
    ])
    expect(findingsAbout(pending, 'spf_')[0]?.record).toEqual({
      type: 'TXT',
      name: returnPath,
      value: 'v=spf1 ip4:127.0.0.1 ~all',
    })
    expect(findingsAbout(pending, 'bounce_mx_')[0]?.code).toBe('bounce_mx_missing')

    publishReturnPath(returnPath)
    const verified = await check(domain.id)
    expect(verified.returnPath).toMatchObject({ domain: returnPath, verified: true })
    expect(verified.returnPath?.verifiedAt).not.toBeNull()
    expect(findingsAbout(verified, 'return_path_')).toEqual([
      {
        code: 'return_path_ok',
        severity: 'ok',
        reason: `Mail from ${domain.domain} goes out with MAIL FROM at ${returnPath}, which aligns with the From.`,
      },
    ])
  })

  it('return_path_not_aligned: strict SPF alignment in DMARC makes a subdomain return path not count', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    dns.set(`_dmarc.${domain.domain}`, 'TXT', ['v=DMARC1; p=quarantine; aspf=s'])
    await setReturnPath(domain.id, `bounce.${domain.domain}`)
    const [found] = findingsAbout(await check(domain.id), 'return_path_not_aligned')
    expect(found).toMatchObject({ code: 'return_path_not_aligned', severity: 'warning' })
    expect(found?.reason).toContain('Use aspf=r (relaxed)')
  })

  it('is used as the envelope MAIL FROM at the SMTP server once verified; the From and DKIM stay on the domain', async () => {
    const domain = await addVerifiedDomain(server, dns, account, uniqueDomain())
    const returnPath = `bounce.${domain.domain}`
    await setReturnPath(domain.id, returnPath)
    publishReturnPath(returnPath)
    expect((await check(domain.id)).returnPath?.verified).toBe(true)
    sink.reset()
    await send(`news@${domain.domain}`)
    const [received] = await sink.waitForMessages(1)
    expect(received?.envelope).toEqual({ from: `news@${returnPath}`, to: ['reader@example.org'] })
    expect(received?.parsed.from?.value[0]?.address).toBe(`news@${domain.domain}`)
    expect(received?.parsed.headers.get('dkim-signature')).toMatchObject({ params: { d: domain.domain } })
  })

  it('is not used while pending: MAIL FROM stays the From address', async () => {
    const domain = await addVerifiedDomain(server, dns, account, uniqueDomain())
    await setReturnPath(domain.id, `bounce.${domain.domain}`)
    sink.reset()
    await send(`news@${domain.domain}`)
    const [received] = await sink.waitForMessages(1)
    expect(received?.envelope.from).toBe(`news@${domain.domain}`)
  })

  it('is removed with null, and setting the same one again keeps its verification', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const returnPath = `bounce.${domain.domain}`
    await setReturnPath(domain.id, returnPath)
    publishReturnPath(returnPath)
    const verifiedAt = (await check(domain.id)).returnPath?.verifiedAt
    const again = await setReturnPath(domain.id, returnPath)
    expect(again.json<DomainView>().returnPath).toEqual({ domain: returnPath, verified: true, verifiedAt })
    const removed = await setReturnPath(domain.id, null)
    expect(removed.statusCode).toBe(200)
    expect(removed.json<DomainView>().returnPath).toBeNull()
    const [row] = await server.ctx.db.select().from(domains).where(eq(domains.id, domain.id))
    expect([row?.returnPathDomain, row?.returnPathVerifiedAt]).toEqual([null, null])
  })
})

describe('return path: rejects', () => {
  it('refuses a domain that is not a subdomain of the sender domain with a field error, changing nothing', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    for (const value of [domain.domain, 'bounce.elsewhere.test', `bounce${domain.domain}`]) {
      const response = await setReturnPath(domain.id, value)
      expect(response.statusCode, value).toBe(422)
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [
          {
            field: 'domain',
            code: 'custom',
            message: `Must be a subdomain of ${domain.domain}, such as bounce.${domain.domain}`,
          },
        ],
      })
    }
    for (const payload of [{ domain: 'not a domain' }, { domain: 42 }, {}]) {
      const response = await server.app.inject({
        method: 'PUT',
        url: `/domains/${domain.id}/return-path`,
        headers: bearer(account.secretKey),
        payload,
      })
      expect(response.statusCode, JSON.stringify(payload)).toBe(422)
      expect(response.json().error.errors[0]).toMatchObject({ field: 'domain' })
    }
    const [row] = await server.ctx.db.select().from(domains).where(eq(domains.id, domain.id))
    expect(row?.returnPathDomain).toBeNull()
  })
})

describe('return path: scoping', () => {
  it('requires the secret key (or a session)', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    await expectSecretKeyRequired(server, account, {
      method: 'PUT',
      url: `/domains/${domain.id}/return-path`,
      payload: { domain: `bounce.${domain.domain}` },
    })
  })

  it("cannot set another project's return path: 404, the domain unchanged", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const domain = await addDomain(server, owner, uniqueDomain())
    const before = (await server.ctx.db.select().from(domains).where(eq(domains.id, domain.id)))[0]
    const response = await setReturnPath(domain.id, `bounce.${domain.domain}`, stranger)
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(notFoundBody('Domain'))
    expect((await server.ctx.db.select().from(domains).where(eq(domains.id, domain.id)))[0]).toEqual(before)
  })
})
