import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { domains } from '../../src/db/schema/index.js'
import type { Finding } from '../../src/modules/domains/audit/schemas.js'
import { domainAuditErrors } from '../../src/modules/domains/audit/service.js'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import type { TestDnsServer } from '../helpers/dns-server.js'
import { addDomain, publishDkim, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { expectSecretKeyRequired, notFoundBody } from '../helpers/scoping.js'
import type { TestServer } from '../helpers/server.js'

// The test server's transport is smtp://127.0.0.1:9: SPF must name 127.0.0.1, PUBLIC_URL is http://localhost:3000.
let env: ServerWithDns
let server: TestServer
let dns: TestDnsServer
let account: Account

beforeAll(async () => {
  env = await startServerWithDns()
  ;({ server, dns } = env)
  account = await createAccount(server)
})
afterAll(() => env?.close())

let counter = 0
function uniqueDomain(): string {
  counter++
  return `a${counter}-${process.pid}.audit.test`
}

type AuditAnswer = { domainId: string; domain: string; checkedAt: string; findings: Finding[] }

async function audit(domainId: string, who: Account = account): Promise<AuditAnswer> {
  const response = await server.app.inject({
    method: 'GET',
    url: `/domains/${domainId}/audit`,
    headers: bearer(who.secretKey),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json<AuditAnswer>()
}

/** The findings whose code starts with `area`, e.g. `spf_`. */
function about(answer: AuditAnswer, area: string): Finding[] {
  return answer.findings.filter((item) => item.code.startsWith(area))
}

async function newDomain(): Promise<DomainView> {
  return addDomain(server, account, uniqueDomain())
}

describe('domain audit: DKIM', () => {
  it('dkim_ok: the published key is the one Mailroom signs with', async () => {
    const domain = await newDomain()
    publishDkim(dns, domain)
    expect(about(await audit(domain.id), 'dkim_')).toEqual([
      {
        code: 'dkim_ok',
        severity: 'ok',
        reason: `The DKIM key at ${domain.dkimSelector}._domainkey.${domain.domain} is the one Mailroom signs ${domain.domain}'s mail with.`,
      },
    ])
  })

  it('dkim_missing: no key published, with the record to publish', async () => {
    const domain = await newDomain()
    const dkim = domain.records.find((record) => record.purpose === 'DKIM')
    const [found] = about(await audit(domain.id), 'dkim_')
    expect(found).toMatchObject({ code: 'dkim_missing', severity: 'error' })
    expect(found?.reason).toContain(`There is no DKIM key at ${dkim?.name}`)
    expect(found?.record).toEqual({ type: 'TXT', name: dkim?.name, value: dkim?.value })
  })

  it('dkim_key_mismatch: a different key at the selector is an error, not a 500', async () => {
    const domain = await newDomain()
    const dkim = domain.records.find((record) => record.purpose === 'DKIM')
    dns.set(dkim?.name ?? '', 'TXT', ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAotherkey'])
    const [found] = about(await audit(domain.id), 'dkim_')
    expect(found).toMatchObject({ code: 'dkim_key_mismatch', severity: 'error' })
    expect(found?.reason).toContain('holds a different key')
    expect(found?.record).toEqual({ type: 'TXT', name: dkim?.name, value: dkim?.value })
  })
})

describe('domain audit: SPF', () => {
  it('spf_ok: a record naming the relay, with its lookups counted through includes', async () => {
    const domain = await newDomain()
    const name = domain.domain
    dns.set(name, 'TXT', [`v=spf1 include:one.${name} mx ~all`])
    dns.set(`one.${name}`, 'TXT', [`v=spf1 include:two.${name} -all`])
    dns.set(`two.${name}`, 'TXT', ['v=spf1 ip4:127.0.0.0/24 -all'])
    expect(about(await audit(domain.id), 'spf_')).toEqual([
      {
        code: 'spf_ok',
        severity: 'ok',
        reason: `The SPF record of ${name} authorises your SMTP relay 127.0.0.1, with 3 of 10 DNS lookups.`,
      },
    ])
  })

  it('spf_missing: no record, and the one to publish names the relay', async () => {
    const domain = await newDomain()
    const [found] = about(await audit(domain.id), 'spf_')
    expect(found).toMatchObject({ code: 'spf_missing', severity: 'error' })
    expect(found?.record).toEqual({ type: 'TXT', name: domain.domain, value: 'v=spf1 ip4:127.0.0.1 ~all' })
  })

  it('spf_not_authorized: a record that names other senders only gets the relay added in front', async () => {
    const domain = await newDomain()
    dns.set(domain.domain, 'TXT', ['v=spf1 include:_spf.mail-provider.test ~all'])
    dns.set('_spf.mail-provider.test', 'TXT', ['v=spf1 ip4:192.0.2.0/24 -all'])
    const [found] = about(await audit(domain.id), 'spf_')
    expect(found).toMatchObject({ code: 'spf_not_authorized', severity: 'error' })
    expect(found?.reason).toContain('does not name your SMTP relay 127.0.0.1')
    expect(found?.record).toEqual({
      type: 'TXT',
      name: domain.domain,
      value: 'v=spf1 ip4:127.0.0.1 include:_spf.mail-provider.test ~all',
    })
  })

  it('spf_invalid: syntax errors and two records are findings, with a repaired record', async () => {
    const domain = await newDomain()
    dns.set(domain.domain, 'TXT', ['v=spf1 ip4:300.1.2.3 ip4:127.0.0.1 foo:bar include: ~all', 'v=spf1 -all'])
    const [found] = about(await audit(domain.id), 'spf_')
    expect(found).toMatchObject({ code: 'spf_invalid', severity: 'error' })
    expect(found?.reason).toContain(`${domain.domain} has 2 SPF records`)
    expect(found?.reason).toContain('"ip4:300.1.2.3" is not a valid IPv4 network')
    expect(found?.reason).toContain('"foo:bar" is not an SPF mechanism')
    expect(found?.reason).toContain('"include:": include needs a domain')
    expect(found?.record).toEqual({ type: 'TXT', name: domain.domain, value: 'v=spf1 ip4:127.0.0.1 ~all' })
  })

  it('spf_loop: a record that includes itself is a finding, answered at once', async () => {
    const domain = await newDomain()
    const name = domain.domain
    dns.set(name, 'TXT', [`v=spf1 ip4:127.0.0.1 include:${name} ~all`])
    const started = Date.now()
    const [found] = about(await audit(domain.id), 'spf_')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(found).toMatchObject({ code: 'spf_loop', severity: 'error' })
    expect(found?.reason).toContain(`(${name} → ${name})`)
    expect(found?.record).toEqual({ type: 'TXT', name, value: 'v=spf1 ip4:127.0.0.1 ~all' })
    // The record was fetched once for the audit (and once for the verification), never followed round again.
    expect(dns.queries.filter((query) => query.name === name && query.type === 'TXT').length).toBeLessThanOrEqual(2)
  })

  it('spf_loop: a loop through another domain names the whole chain', async () => {
    const domain = await newDomain()
    const name = domain.domain
    dns.set(name, 'TXT', [`v=spf1 ip4:127.0.0.1 include:b.${name} ~all`])
    dns.set(`b.${name}`, 'TXT', [`v=spf1 include:${name} -all`])
    const [found] = about(await audit(domain.id), 'spf_')
    expect(found).toMatchObject({ code: 'spf_loop', severity: 'error' })
    expect(found?.reason).toContain(`(${name} → b.${name} → ${name})`)
    expect(found?.record?.value).toBe('v=spf1 ip4:127.0.0.1 ~all')
  })

  it('spf_too_many_lookups: eleven nested includes stop at the eleventh lookup', async () => {
    const domain = await newDomain()
    const name = domain.domain
    const hop = (index: number) => `i${index}.${name}`
    dns.set(name, 'TXT', [`v=spf1 ip4:127.0.0.1 include:${hop(1)} ~all`])
    for (let index = 1; index <= 12; index++) dns.set(hop(index), 'TXT', [`v=spf1 include:${hop(index + 1)} -all`])
    const [found] = about(await audit(domain.id), 'spf_')
    expect(found).toMatchObject({ code: 'spf_too_many_lookups', severity: 'error' })
    expect(found?.reason).toContain('needs more than 10 DNS lookups')
    expect(found?.record).toEqual({ type: 'TXT', name, value: 'v=spf1 ip4:127.0.0.1 ~all' })
    // Bounded: the walk fetched the first ten includes and no further.
    const fetched = new Set(dns.queries.filter((query) => query.name.startsWith('i')).map((query) => query.name))
    expect(fetched.has(hop(10))).toBe(true)
    expect(fetched.has(hop(11))).toBe(false)
  })

  it('spf_too_many_lookups: a, mx and exists count as lookups too', async () => {
    const domain = await newDomain()
    const terms = Array.from({ length: 11 }, (_, index) => `exists:e${index}.${domain.domain}`)
    dns.set(domain.domain, 'TXT', [`v=spf1 ip4:127.0.0.1 a mx ${terms.join(' ')} ~all`])
    expect(about(await audit(domain.id), 'spf_').map((item) => item.code)).toEqual(['spf_too_many_lookups'])
  })
})

describe('domain audit: DMARC', () => {
  it('dmarc_missing: no record at the domain or above it, with a p=none record to start from', async () => {
    const domain = await newDomain()
    const [found] = about(await audit(domain.id), 'dmarc_')
    expect(found).toMatchObject({ code: 'dmarc_missing', severity: 'error' })
    expect(found?.record).toEqual({ type: 'TXT', name: `_dmarc.${domain.domain}`, value: 'v=DMARC1; p=none;' })
  })

  it('dmarc_invalid: syntax errors are each named, with a repaired record', async () => {
    const domain = await newDomain()
    dns.set(`_dmarc.${domain.domain}`, 'TXT', ['v=DMARC1; p=maybe; pct=150; adkim; rua=dmarc@example.com'])
    const [found] = about(await audit(domain.id), 'dmarc_')
    expect(found).toMatchObject({ code: 'dmarc_invalid', severity: 'error' })
    for (const problem of [
      'p=maybe is not none, quarantine or reject',
      'pct=150 is not a whole number from 0 to 100',
      '"adkim" is not a tag=value pair',
      'rua: "dmarc@example.com" is not a URI such as mailto:dmarc@example.com',
    ]) {
      expect(found?.reason).toContain(problem)
    }
    expect(found?.record).toEqual({ type: 'TXT', name: `_dmarc.${domain.domain}`, value: 'v=DMARC1; p=none;' })
  })

  it('dmarc_invalid: a record without v=DMARC1 first, or two records, is ignored by receivers', async () => {
    const domain = await newDomain()
    dns.set(`_dmarc.${domain.domain}`, 'TXT', ['p=reject; v=DMARC1'])
    expect((await audit(domain.id)).findings.find((item) => item.code === 'dmarc_invalid')?.reason).toContain(
      'the record must start with v=DMARC1',
    )
    dns.set(`_dmarc.${domain.domain}`, 'TXT', ['v=DMARC1; p=none', 'v=DMARC1; p=reject'])
    expect((await audit(domain.id)).findings.find((item) => item.code === 'dmarc_invalid')?.reason).toContain(
      'there are 2 records, and receivers ignore them all',
    )
  })

  it('dmarc_policy_none: monitoring only, with alignment, and quarantine as the next step', async () => {
    const domain = await newDomain()
    dns.set(`_dmarc.${domain.domain}`, 'TXT', ['v=DMARC1; p=none; aspf=s; rua=mailto:dmarc@example.com'])
    const [found] = about(await audit(domain.id), 'dmarc_')
    expect(found).toMatchObject({ code: 'dmarc_policy_none', severity: 'warning' })
    expect(found?.reason).toContain('DKIM alignment is relaxed (adkim), SPF alignment strict (aspf)')
    expect(found?.reason).toContain('Next: p=quarantine.')
    expect(found?.record).toEqual({
      type: 'TXT',
      name: `_dmarc.${domain.domain}`,
      value: 'v=DMARC1; p=quarantine; aspf=s; rua=mailto:dmarc@example.com;',
    })
  })

  it("dmarc_policy_none: a subdomain inherits its parent's record, and its sp= policy", async () => {
    const parent = uniqueDomain()
    const domain = await addDomain(server, account, `news.${parent}`)
    dns.set(`_dmarc.${parent}`, 'TXT', ['v=DMARC1; p=reject; sp=none'])
    const [found] = about(await audit(domain.id), 'dmarc_')
    expect(found).toMatchObject({ code: 'dmarc_policy_none', severity: 'warning' })
    expect(found?.reason).toContain(`_dmarc.${parent} (inherited by news.${parent})`)
    expect(found?.record).toEqual({ type: 'TXT', name: `_dmarc.news.${parent}`, value: 'v=DMARC1; p=quarantine;' })
  })

  it('dmarc_policy_quarantine: reject is the next step', async () => {
    const domain = await newDomain()
    dns.set(`_dmarc.${domain.domain}`, 'TXT', ['v=DMARC1; p=quarantine; adkim=s'])
    const [found] = about(await audit(domain.id), 'dmarc_')
    expect(found).toMatchObject({ code: 'dmarc_policy_quarantine', severity: 'info' })
    expect(found?.reason).toContain('DKIM alignment is strict (adkim)')
    expect(found?.record?.value).toBe('v=DMARC1; p=reject; adkim=s;')
  })

  it('dmarc_policy_partial: reject for part of the mail only; dropping pct= is the next step', async () => {
    const domain = await newDomain()
    dns.set(`_dmarc.${domain.domain}`, 'TXT', ['v=DMARC1; p=reject; pct=25'])
    const [found] = about(await audit(domain.id), 'dmarc_')
    expect(found).toMatchObject({ code: 'dmarc_policy_partial', severity: 'info' })
    expect(found?.reason).toContain('It applies to 25 % of that mail only (pct=25).')
    expect(found?.record?.value).toBe('v=DMARC1; p=reject;')
  })

  it('dmarc_ok: reject for all mail', async () => {
    const domain = await newDomain()
    dns.set(`_dmarc.${domain.domain}`, 'TXT', ['v=DMARC1; p=reject'])
    const [found] = about(await audit(domain.id), 'dmarc_')
    expect(found).toEqual({
      code: 'dmarc_ok',
      severity: 'ok',
      reason: `The DMARC record at _dmarc.${domain.domain} asks receivers to refuse mail that fails DMARC (p=reject). DKIM alignment is relaxed (adkim), SPF alignment relaxed (aspf).`,
    })
  })
})

describe('domain audit: bounce MX', () => {
  it('bounce_mx_ok: the envelope domain has an MX', async () => {
    const domain = await newDomain()
    dns.set(domain.domain, 'MX', [{ exchange: `mx.${domain.domain}`, priority: 10 }])
    expect(about(await audit(domain.id), 'bounce_mx_')).toEqual([
      { code: 'bounce_mx_ok', severity: 'ok', reason: `Bounces to ${domain.domain} go to mx.${domain.domain}.` },
    ])
  })

  it('bounce_mx_missing: no MX, so bounces have nowhere to go', async () => {
    const domain = await newDomain()
    const [found] = about(await audit(domain.id), 'bounce_mx_')
    expect(found).toMatchObject({ code: 'bounce_mx_missing', severity: 'error' })
    expect(found?.reason).toContain(`${domain.domain}, the envelope (MAIL FROM) domain of your mail, has no MX record`)
  })
})

describe('domain audit: return path and tracking', () => {
  it('return_path_missing: with SMTP the domain itself is MAIL FROM, so a return path is only offered', async () => {
    const domain = await newDomain()
    const [found] = about(await audit(domain.id), 'return_path_')
    expect(found).toMatchObject({ code: 'return_path_missing', severity: 'info' })
    expect(found?.reason).toContain(`A return-path domain such as bounce.${domain.domain}`)
  })

  it('tracking_not_https: links to an http PUBLIC_URL', async () => {
    const domain = await newDomain()
    const [found] = about(await audit(domain.id), 'tracking_')
    expect(found).toMatchObject({ code: 'tracking_not_https', severity: 'warning' })
    expect(found?.reason).toContain('Tracking and unsubscribe links point to http://localhost:3000, over plain http')
  })
})

describe('domain audit: stored', () => {
  it('keeps the latest audit on the domain, shows it in the list, and gives its errors to the pre-send check', async () => {
    const domain = await newDomain()
    const answer = await audit(domain.id)
    const [row] = await server.ctx.db.select().from(domains).where(eq(domains.id, domain.id))
    expect(row?.audit).toEqual({ checkedAt: answer.checkedAt, findings: answer.findings })

    const list = await server.app.inject({
      method: 'GET',
      url: '/domains/project/current',
      headers: bearer(account.secretKey),
    })
    const listed = list.json<DomainView[]>().find((item) => item.id === domain.id)
    expect(listed?.audit).toEqual({ checkedAt: answer.checkedAt, findings: answer.findings })

    const errors = await domainAuditErrors(server.ctx.db, account.project.id, `news@${domain.domain.toUpperCase()}`)
    expect(errors.map((item) => item.code).sort()).toEqual(
      ['bounce_mx_missing', 'dkim_missing', 'dmarc_missing', 'spf_missing'].sort(),
    )
    expect(await domainAuditErrors(server.ctx.db, (await createAccount(server)).project.id, domain.domain)).toEqual([])
  })

  it('the domain check (/verify) stores the audit too, and a fixed record clears its error', async () => {
    const domain = await newDomain()
    await audit(domain.id)
    publishDkim(dns, domain)
    const response = await server.app.inject({
      method: 'GET',
      url: `/domains/${domain.id}/verify`,
      headers: bearer(account.secretKey),
    })
    const checked = response.json<DomainView>()
    expect(checked.status).toBe('VERIFIED')
    expect(checked.audit?.findings.find((item) => item.code.startsWith('dkim_'))?.code).toBe('dkim_ok')
    const errors = await domainAuditErrors(server.ctx.db, account.project.id, domain.domain)
    expect(errors.map((item) => item.code)).not.toContain('dkim_missing')
  })
})

describe('domain audit: scoping', () => {
  it('requires the secret key (or a session)', async () => {
    const domain = await newDomain()
    await expectSecretKeyRequired(server, account, { method: 'GET', url: `/domains/${domain.id}/audit` })
  })

  it("cannot audit another project's domain: 404, and its stored audit stays as it was", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const domain = await addDomain(server, owner, uniqueDomain())
    const before = (await server.ctx.db.select().from(domains).where(eq(domains.id, domain.id)))[0]
    const response = await server.app.inject({
      method: 'GET',
      url: `/domains/${domain.id}/audit`,
      headers: bearer(stranger.secretKey),
    })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(notFoundBody('Domain'))
    expect((await server.ctx.db.select().from(domains).where(eq(domains.id, domain.id)))[0]).toEqual(before)
  })

  it('rejects a domain id that is not a uuid with 422', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/domains/nope/audit',
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors[0]).toMatchObject({ field: 'id', code: 'invalid_string' })
  })
})
