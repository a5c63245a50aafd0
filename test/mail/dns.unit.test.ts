import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResolver } from '../../src/mail/dns.js'
import { decryptPrivateKey, encryptPrivateKey } from '../../src/mail/outbound/dkim-keys.js'
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js'
import { startSilentDnsServer } from '../helpers/silent-dns.js'

let dns: TestDnsServer

beforeAll(async () => {
  dns = await startDnsServer({
    'shop.test': { MX: [{ exchange: 'mx.shop.test', priority: 10 }], TXT: [`v=DKIM1; p=${'A'.repeat(400)}`] },
  })
})
afterAll(() => dns.close())

describe('createResolver', () => {
  it('asks the configured servers and tells found, no data and no such name apart', async () => {
    const resolver = createResolver({ dnsServers: [dns.address] }, { cacheTtlMs: 0 })
    expect(await resolver.mx('shop.test')).toEqual({
      outcome: 'found',
      records: [{ exchange: 'mx.shop.test', priority: 10 }],
    })
    expect(await resolver.txt('shop.test')).toEqual({ outcome: 'found', records: [`v=DKIM1; p=${'A'.repeat(400)}`] })
    expect(await resolver.a('shop.test')).toEqual({ outcome: 'empty', records: [] })
    expect(await resolver.ns('nowhere.test')).toEqual({ outcome: 'nxdomain', records: [] })
  })

  it('reuses an answer within its cache TTL, and asks again without a cache', async () => {
    const cached = createResolver({ dnsServers: [dns.address] }, { cacheTtlMs: 60_000 })
    const before = dns.queries.length
    await cached.mx('Shop.test.')
    await cached.mx('shop.test')
    expect(dns.queries.length - before).toBe(1)

    const fresh = createResolver({ dnsServers: [dns.address] }, { cacheTtlMs: 0 })
    await fresh.mx('shop.test')
    await fresh.mx('shop.test')
    expect(dns.queries.length - before).toBe(3)
  })

  it('gives up after its timeout when the server does not answer', async () => {
    const silent = await startSilentDnsServer()
    try {
      const resolver = createResolver({ dnsServers: [silent.address] }, { timeoutMs: 300 })
      const started = Date.now()
      expect(await resolver.mx('shop.test')).toEqual({ outcome: 'failed', records: [] })
      expect(Date.now() - started).toBeLessThan(2_000)
    } finally {
      silent.close()
    }
  })
})

describe('DKIM private key sealing', () => {
  it('opens only with the same secret and the same project and domain', () => {
    const secret = 'a'.repeat(40)
    const sealed = encryptPrivateKey(secret, 'PEM', 'project-1:shop.test')
    expect(sealed).not.toContain('PEM')
    expect(decryptPrivateKey(secret, sealed, 'project-1:shop.test')).toBe('PEM')
    expect(() => decryptPrivateKey(secret, sealed, 'project-2:shop.test')).toThrow()
    expect(() => decryptPrivateKey('b'.repeat(40), sealed, 'project-1:shop.test')).toThrow()
  })
})
