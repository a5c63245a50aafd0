import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResolver } from '../../src/mail/dns.js'
import { verifyEmail } from '../../src/modules/verify/service.js'
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js'
import { validationErrorBody } from '../helpers/errors.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { expectSecretKeyRequired } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { startSilentDnsServer } from '../helpers/silent-dns.js'

let server: TestServer
let dns: TestDnsServer
let account: Account

const mailDomain = { NS: ['ns1.dns.test'], MX: [{ exchange: 'mx.dns.test', priority: 10 }], A: ['192.0.2.1'] }

beforeAll(async () => {
  dns = await startDnsServer({
    'shop.test': mailDomain,
    'gmail.com': mailDomain,
    'mailinator.com': mailDomain,
    'duck.com': mailDomain,
    'nomx.test': { NS: ['ns1.dns.test'], A: ['192.0.2.2'] },
    'cached.test': mailDomain,
  })
  server = await startTestServer({ config: { dnsServers: [dns.address] }, worker: false })
  account = await createAccount(server)
})
afterAll(async () => {
  await server?.close()
  await dns?.close()
})

async function verify(email: unknown) {
  return server.app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: bearer(account.secretKey),
    payload: { email },
  })
}

describe('verify: accepts', () => {
  it('answers every field for a deliverable address, from the configured DNS server', async () => {
    const response = await verify('ada@shop.test')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      success: true,
      data: {
        email: 'ada@shop.test',
        valid: true,
        isDisposable: false,
        isAlias: false,
        isTypo: false,
        isPlusAddressed: false,
        isPersonalEmail: false,
        domainExists: true,
        hasWebsite: true,
        hasMxRecords: true,
        reasons: [],
      },
    })
    expect(dns.queries).toEqual(
      expect.arrayContaining([
        { name: 'shop.test', type: 'NS' },
        { name: 'shop.test', type: 'MX' },
        { name: 'shop.test', type: 'A' },
        { name: 'shop.test', type: 'AAAA' },
      ]),
    )
  })

  it('flags a free provider and plus-addressing without making the address invalid', async () => {
    const { data } = (await verify('ada+news@gmail.com')).json()
    expect(data).toMatchObject({ valid: true, isPersonalEmail: true, isPlusAddressed: true, isDisposable: false })
    expect(data.reasons).toEqual(['Plus-addressed email', 'Free or personal email provider'])
  })

  it('flags a disposable domain as invalid, and a forwarding service as an alias', async () => {
    expect((await verify('x@mailinator.com')).json().data).toMatchObject({
      valid: false,
      isDisposable: true,
      isAlias: false,
      reasons: ['Disposable email address'],
    })
    expect((await verify('x@duck.com')).json().data).toMatchObject({ valid: true, isDisposable: false, isAlias: true })
  })

  it('suggests the likely address for a typo', async () => {
    const { data } = (await verify('ada@gmial.com')).json()
    expect(data).toMatchObject({
      isTypo: true,
      suggestedEmail: 'ada@gmail.com',
      domainExists: false,
      valid: false,
      reasons: ['Domain does not exist', 'Disposable email address', 'Possible typo: did you mean ada@gmail.com?'],
    })
  })

  it('answers valid false, with 200, for a domain without MX records or without DNS at all', async () => {
    const noMx = await verify('ada@nomx.test')
    expect(noMx.statusCode).toBe(200)
    expect(noMx.json().data).toMatchObject({
      valid: false,
      domainExists: true,
      hasWebsite: true,
      hasMxRecords: false,
      reasons: ['Domain has no MX records'],
    })
    expect((await verify('ada@missing.test')).json().data).toMatchObject({
      valid: false,
      domainExists: false,
      hasWebsite: false,
      hasMxRecords: false,
    })
  })

  it('says the domain could not be checked when DNS does not answer', async () => {
    const silent = await startSilentDnsServer()
    try {
      const resolver = createResolver({ dnsServers: [silent.address] }, { timeoutMs: 200 })
      expect(await verifyEmail(resolver, 'ada@shop.test')).toMatchObject({
        valid: false,
        domainExists: false,
        reasons: ['DNS lookup failed; the domain could not be checked'],
      })
    } finally {
      silent.close()
    }
  })

  it('reuses a recent DNS answer for the same domain', async () => {
    await verify('a@cached.test')
    const before = dns.queries.length
    await verify('b@cached.test')
    expect(dns.queries.length).toBe(before)
  })
})

describe('verify: rejects', () => {
  it('answers 422 when email is missing or not a string', async () => {
    for (const payload of [{}, { email: 42 }]) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/v1/verify',
        headers: bearer(account.secretKey),
        payload,
      })
      expect(response.statusCode).toBe(422)
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'email', code: 'invalid_type' }],
      })
    }
  })
  it('answers 422 naming email, with no DNS lookup, for a string that is not an email address', async () => {
    const before = dns.queries.length
    for (const [email, message] of [
      ['not-an-email', 'Must be an email address'],
      ['a@@shop.test', 'Must be an email address'],
      ['@shop.test', 'Must be an email address'],
      ['ada@', 'Must be an email address'],
      ['', 'Must be an email address'],
      [`${'a'.repeat(65)}@shop.test`, 'The part of an email address before @ may have at most 64 characters'],
      [`ada@${'b'.repeat(250)}.test`, 'Must be an email address of at most 254 characters'],
    ]) {
      const response = await verify(email)
      expect(response.statusCode, email).toBe(422)
      expect(response.json()).toEqual(validationErrorBody([{ field: 'email', message }]))
    }
    expect(dns.queries.length).toBe(before)
  })
})

describe('verify: scoping', () => {
  it('requires the secret key', async () => {
    await expectSecretKeyRequired(server, account, {
      method: 'POST',
      url: '/v1/verify',
      payload: { email: 'ada@shop.test' },
    })
  })
})
