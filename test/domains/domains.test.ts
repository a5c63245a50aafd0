import { createPublicKey } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { eq } from 'drizzle-orm'
import { dkimSign } from 'mailauth/lib/dkim/sign.js'
import { dkimVerify } from 'mailauth/lib/dkim/verify.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { domains } from '../../src/db/schema/index.js'
import { createResolver } from '../../src/mail/dns.js'
import { createAuditDeps } from '../../src/modules/domains/audit/deps.js'
import { verifyDomain } from '../../src/modules/domains/check.js'
import { buildDnsRecords } from '../../src/modules/domains/dns-records.js'
import { verifyPendingDomainsJob } from '../../src/modules/domains/jobs.js'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import { getSigningKey } from '../../src/modules/domains/service.js'
import type { TestDnsServer } from '../helpers/dns-server.js'
import { addDomain, checkDomain, publishDkim, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { expectSecretKeyRequired, notFoundBody } from '../helpers/scoping.js'
import type { TestServer } from '../helpers/server.js'
import { startSilentDnsServer } from '../helpers/silent-dns.js'

let server: TestServer
let dns: TestDnsServer
let account: Account

let env: ServerWithDns

beforeAll(async () => {
  env = await startServerWithDns()
  ;({ server, dns } = env)
  account = await createAccount(server)
})
afterAll(() => env?.close())

let domainCounter = 0
function uniqueDomain(): string {
  domainCounter++
  return `d${domainCounter}-${process.pid}.mailroom.test`
}

async function storedDomain(id: string) {
  const [row] = await server.ctx.db.select().from(domains).where(eq(domains.id, id))
  return row
}

describe('domains: accepts', () => {
  it('adds a domain and answers with its DKIM, SPF and DMARC records, without the private key', async () => {
    const name = uniqueDomain()
    const response = await server.app.inject({
      method: 'POST',
      url: '/domains',
      headers: bearer(account.secretKey),
      payload: { domain: ` ${name.toUpperCase()}. ` },
    })
    expect(response.statusCode).toBe(201)
    const domain = response.json<DomainView>()
    expect(domain).toMatchObject({ projectId: account.project.id, domain: name, status: 'PENDING', verified: false })
    expect(domain.dkimSelector).toMatch(/^mr[0-9a-f]{10}$/)
    const publicKey = domain.records[0]?.value.match(/^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/)?.[1] ?? ''
    expect(domain.records).toEqual([
      {
        type: 'TXT',
        name: `${domain.dkimSelector}._domainkey.${name}`,
        value: `v=DKIM1; k=rsa; p=${publicKey}`,
        purpose: 'DKIM',
        required: true,
        status: 'pending',
      },
      // The test server's relay is smtp://127.0.0.1:9: SPF names it by address.
      { type: 'TXT', name, value: 'v=spf1 ip4:127.0.0.1 ~all', purpose: 'SPF', required: false, status: 'pending' },
      {
        type: 'TXT',
        name: `_dmarc.${name}`,
        value: 'v=DMARC1; p=none;',
        purpose: 'DMARC',
        required: false,
        status: 'pending',
      },
    ])
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' })
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048)

    expect(response.body).not.toMatch(/PRIVATE KEY/)
    const row = await storedDomain(domain.id)
    expect(row?.dkimPrivateKeySealed).toMatch(/^v1:/)
    expect(row?.dkimPrivateKeySealed).not.toMatch(/PRIVATE KEY/)
  })

  it('stays pending until the DKIM record is published, then verifies against the DNS server', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const dkim = domain.records[0]
    if (!dkim) throw new Error('no DKIM record')

    const before = await checkDomain(server, account, domain.id)
    expect(before).toMatchObject({ status: 'PENDING', verified: false, verifiedAt: null })
    expect(before.lastCheckedAt).not.toBeNull()
    expect(dns.queries).toContainEqual({ name: dkim.name, type: 'TXT' })

    dns.set(dkim.name, 'TXT', ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrongkey'])
    expect((await checkDomain(server, account, domain.id)).status).toBe('PENDING')

    // Providers' consoles often add quotes or break the key; the key itself is what must match.
    dns.set(dkim.name, 'TXT', [`"${dkim.value.replace('; p=', ';  p=')}"`])
    dns.set(domain.domain, 'TXT', ['v=spf1 include:_spf.example.net ~all'])
    const after = await checkDomain(server, account, domain.id)
    expect(after).toMatchObject({ status: 'VERIFIED', verified: true })
    expect(after.verifiedAt).not.toBeNull()
    expect(after.records.map((record) => [record.purpose, record.status])).toEqual([
      ['DKIM', 'verified'],
      ['SPF', 'verified'],
      ['DMARC', 'pending'],
    ])
  })

  it('goes back to pending when the DKIM record disappears', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    publishDkim(dns, domain)
    expect((await checkDomain(server, account, domain.id)).status).toBe('VERIFIED')
    dns.remove(domain.records[0]?.name ?? '')
    expect(await checkDomain(server, account, domain.id)).toMatchObject({ status: 'PENDING', verifiedAt: null })
  })

  it('keeps the status it had when DNS does not answer', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    publishDkim(dns, domain)
    expect((await checkDomain(server, account, domain.id)).status).toBe('VERIFIED')
    const silent = await startSilentDnsServer()
    try {
      const unreachable = createResolver({ dnsServers: [silent.address] }, { timeoutMs: 200, cacheTtlMs: 0 })
      const deps = createAuditDeps(server.config, { resolver: unreachable })
      const checked = await verifyDomain(server.ctx.db, server.config, deps, account.project.id, domain.id)
      expect(checked).toMatchObject({ status: 'VERIFIED', verified: true })
      expect(checked.records.find((record) => record.purpose === 'DKIM')?.status).toBe('verified')
    } finally {
      silent.close()
    }
  })

  it('verifies pending domains in the background job', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    publishDkim(dns, domain)
    await server.ctx.boss.send(verifyPendingDomainsJob.name, {})
    await vi.waitFor(async () => expect((await storedDomain(domain.id))?.status).toBe('VERIFIED'), {
      timeout: 15_000,
      interval: 100,
    })
  })

  it('signs with the stored key so that receivers verify it against the published record', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    publishDkim(dns, domain)
    const key = await getSigningKey(server.ctx.db, server.config, account.project.id, `news@${domain.domain}`)
    expect(key).toMatchObject({ domain: domain.domain, selector: domain.dkimSelector })
    const message = `From: news@${domain.domain}\r\nTo: ada@example.com\r\nSubject: hi\r\n\r\nHello\r\n`
    const signer = { signingDomain: domain.domain, selector: domain.dkimSelector, privateKey: key?.privateKeyPem ?? '' }
    // mailauth reads the keys from signatureData; its typings also ask for them at the top level.
    const signed = await dkimSign(message, { ...signer, signatureData: [signer] })
    const receiver = new Resolver()
    receiver.setServers([dns.address])
    const result = await dkimVerify(signed.signatures + message, {
      resolver: (name) => receiver.resolveTxt(name),
    })
    expect(result.results.map((signature) => signature.status.result)).toEqual(['pass'])
  })

  it('lets another project add the same domain with its own selector and key', async () => {
    const name = uniqueDomain()
    const first = await addDomain(server, account, name)
    const other = await createAccount(server)
    const second = await addDomain(server, other, name)
    expect(second.dkimSelector).not.toBe(first.dkimSelector)
    expect(second.records[0]?.value).not.toBe(first.records[0]?.value)
    // The first project's record proves nothing for the second.
    publishDkim(dns, first)
    expect((await checkDomain(server, other, second.id)).status).toBe('PENDING')
  })

  it("lists the project's domains, pending and verified, with a secret key or a session", async () => {
    const owner = await createAccount(server)
    const pending = await addDomain(server, owner, uniqueDomain())
    const verified = await addDomain(server, owner, uniqueDomain())
    publishDkim(dns, verified)
    await checkDomain(server, owner, verified.id)
    for (const headers of [bearer(owner.secretKey), { cookie: owner.cookie, 'x-project-id': owner.project.id }]) {
      const response = await server.app.inject({ method: 'GET', url: `/domains/project/${owner.project.id}`, headers })
      expect(response.statusCode).toBe(200)
      expect(response.json().map((domain: DomainView) => [domain.id, domain.status])).toEqual([
        [pending.id, 'PENDING'],
        [verified.id, 'VERIFIED'],
      ])
    }
  })

  it("lists the caller's own project's domains under `current`, as Plunk's clients ask, over real HTTP", async () => {
    const owner = await createAccount(server)
    const other = await createAccount(server)
    const own = await addDomain(server, owner, uniqueDomain())
    const member = { cookie: owner.cookie, 'x-project-id': owner.project.id }
    await addDomain(server, other, uniqueDomain())
    for (const headers of [bearer(owner.secretKey), member]) {
      const response = await fetch(`${server.url}/domains/project/current`, {
        headers: { ...headers, 'Content-Type': 'application/json' },
      })
      expect(response.status).toBe(200)
      expect(((await response.json()) as DomainView[]).map((domain) => domain.id)).toEqual([own.id])
    }
  })

  it('deletes a domain', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    const response = await server.app.inject({
      method: 'DELETE',
      url: `/domains/${domain.id}`,
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(204)
    expect(await storedDomain(domain.id)).toBeUndefined()
  })
})

describe('domains: DNS records per transport', () => {
  it("adds the provider's MAIL FROM records with the SES transport", () => {
    const keys = { domain: 'shop.test', dkimSelector: 'mrabc', dkimPublicKey: 'KEY', returnPathDomain: null }
    expect(buildDnsRecords({ mailTransport: 'ses', sesRegion: 'eu-west-1', smtpUrl: undefined }, keys)).toEqual([
      {
        type: 'TXT',
        name: 'mrabc._domainkey.shop.test',
        value: 'v=DKIM1; k=rsa; p=KEY',
        purpose: 'DKIM',
        required: true,
      },
      {
        type: 'TXT',
        name: 'mail.shop.test',
        value: 'v=spf1 include:amazonses.com ~all',
        purpose: 'SPF',
        required: false,
      },
      {
        type: 'MX',
        name: 'mail.shop.test',
        value: 'feedback-smtp.eu-west-1.amazonses.com',
        priority: 10,
        purpose: 'MAIL_FROM',
        required: false,
      },
      { type: 'TXT', name: '_dmarc.shop.test', value: 'v=DMARC1; p=none;', purpose: 'DMARC', required: false },
    ])
  })
})

describe('domains: rejects', () => {
  it('rejects a value that is not a domain name with a field error', async () => {
    for (const domain of ['localhost', 'exa mple.com', '-bad.example.com', 'a@example.com', '', 42]) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/domains',
        headers: bearer(account.secretKey),
        payload: { domain },
      })
      expect(response.statusCode, String(domain)).toBe(422)
      expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'domain' }] })
    }
  })

  it('refuses the same domain twice in one project with 409', async () => {
    const name = uniqueDomain()
    await addDomain(server, account, name)
    const again = await server.app.inject({
      method: 'POST',
      url: '/domains',
      headers: bearer(account.secretKey),
      payload: { domain: name },
    })
    expect(again.statusCode).toBe(409)
    expect(again.json().error).toMatchObject({
      code: 'CONFLICT',
      message: `Domain ${name} is already added to this project`,
    })
  })
})

describe('domains: scoping', () => {
  it('requires the secret key (or a session) on every domain route', async () => {
    const domain = await addDomain(server, account, uniqueDomain())
    for (const request of [
      { method: 'GET' as const, url: `/domains/project/${account.project.id}` },
      { method: 'POST' as const, url: '/domains', payload: { domain: uniqueDomain() } },
      { method: 'GET' as const, url: `/domains/${domain.id}/verify` },
      { method: 'DELETE' as const, url: `/domains/${domain.id}` },
    ]) {
      await expectSecretKeyRequired(server, account, request)
    }
    expect(await storedDomain(domain.id)).toBeDefined()
  })

  it("cannot list, check or delete another project's domains, which stay unchanged", async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const domain = await addDomain(server, owner, uniqueDomain())
    publishDkim(dns, domain)
    const before = await storedDomain(domain.id)

    const list = await server.app.inject({
      method: 'GET',
      url: `/domains/project/${owner.project.id}`,
      headers: bearer(stranger.secretKey),
    })
    expect(list.statusCode).toBe(404)
    expect(list.json()).toEqual(notFoundBody('Project'))
    for (const request of [
      { method: 'GET' as const, url: `/domains/${domain.id}/verify` },
      { method: 'DELETE' as const, url: `/domains/${domain.id}` },
    ]) {
      const response = await server.app.inject({ ...request, headers: bearer(stranger.secretKey) })
      expect(response.statusCode).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Domain'))
    }
    const add = await server.app.inject({
      method: 'POST',
      url: '/domains',
      headers: bearer(stranger.secretKey),
      payload: { domain: uniqueDomain(), projectId: owner.project.id },
    })
    expect(add.statusCode).toBe(404)
    expect(await storedDomain(domain.id)).toEqual(before)
  })

  it('rejects a project id that is neither a uuid nor `current` with 422', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/domains/project/mine',
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors).toEqual([
      { field: 'projectId', code: 'invalid_string', message: 'Must be a project id (UUID) or "current"' },
    ])
  })

  it('rejects a domain id that is not a uuid with 422', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/domains/not-a-uuid/verify',
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors[0]).toMatchObject({ field: 'id', code: 'invalid_string' })
  })
})
