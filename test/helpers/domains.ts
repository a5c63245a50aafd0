import { expect } from 'vitest'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import { startDnsServer, type TestDnsServer } from './dns-server.js'
import { type Account, bearer } from './factories.js'
import { startTestServer, type TestServer, type TestServerOptions } from './server.js'

export type ServerWithDns = { server: TestServer; dns: TestDnsServer; close(): Promise<void> }

/** A server whose every DNS lookup goes to a local DNS server, with a real transport (smtp) unless told otherwise. */
export async function startServerWithDns(options: TestServerOptions = {}): Promise<ServerWithDns> {
  const dns = await startDnsServer()
  const server = await startTestServer({
    ...options,
    // A real transport makes sender domains need verification; tests that deliver pass their sink's URL.
    config: { mailTransport: 'smtp', smtpUrl: 'smtp://127.0.0.1:9', ...options.config, dnsServers: [dns.address] },
  })
  return {
    server,
    dns,
    async close() {
      await server.close()
      await dns.close()
    },
  }
}

export async function addDomain(server: TestServer, account: Account, domain: string): Promise<DomainView> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/domains',
    headers: bearer(account.secretKey),
    payload: { domain },
  })
  if (response.statusCode !== 201) throw new Error(`domain add failed: ${response.statusCode} ${response.body}`)
  return response.json<DomainView>()
}

/** Publishes the domain's DKIM record on the test DNS server. */
export function publishDkim(dns: TestDnsServer, domain: DomainView): void {
  const dkim = domain.records.find((record) => record.purpose === 'DKIM')
  if (!dkim) throw new Error('domain has no DKIM record')
  dns.set(dkim.name, 'TXT', [dkim.value])
}

export async function checkDomain(server: TestServer, account: Account, domainId: string): Promise<DomainView> {
  const response = await server.app.inject({
    method: 'GET',
    url: `/domains/${domainId}/verify`,
    headers: bearer(account.secretKey),
  })
  expect(response.statusCode).toBe(200)
  return response.json<DomainView>()
}

/**
 * Publishes every record the domain lists, required and recommended (SPF, DMARC), and an MX for its bounces, as
 * a careful user has: its audit then has no errors, so the pre-send check lets its campaigns go.
 */
export function publishAllRecords(dns: TestDnsServer, domain: DomainView): void {
  dns.set(domain.domain, 'MX', [{ exchange: `mx.${domain.domain}`, priority: 10 }])
  for (const record of domain.records) {
    if (record.type === 'MX') dns.set(record.name, 'MX', [{ exchange: record.value, priority: record.priority ?? 10 }])
    else dns.set(record.name, 'TXT', [record.value])
  }
}

/** Adds a domain, publishes every record it lists and verifies it. */
export async function addVerifiedDomain(
  server: TestServer,
  dns: TestDnsServer,
  account: Account,
  domain: string,
): Promise<DomainView> {
  const added = await addDomain(server, account, domain)
  publishAllRecords(dns, added)
  const checked = await checkDomain(server, account, added.id)
  expect(checked.status).toBe('VERIFIED')
  return checked
}
