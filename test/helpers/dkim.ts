import { generateKeyPairSync } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { authenticate } from 'mailauth'
import { dkimVerify } from 'mailauth/lib/dkim/verify.js'
import type { DkimKey } from '../../src/mail/outbound/compose.js'
import type { TestDnsServer } from './dns-server.js'

/** A fresh RSA-2048 key for `domain`, its public half published at `<selector>._domainkey.<domain>`. */
export function publishDkimKey(dns: TestDnsServer, domainName: string, selector = 'mailroom'): DkimKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const publicDer = publicKey.export({ type: 'spki', format: 'der' }).toString('base64')
  dns.set(`${selector}._domainkey.${domainName}`, 'TXT', [`v=DKIM1; k=rsa; p=${publicDer}`])
  return { domainName, selector, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }
}

/** mailauth's DNS lookups, answered by the test DNS server. */
function resolverOf(dns: TestDnsServer) {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 })
  resolver.setServers([dns.address])
  return (name: string, type: string) => resolver.resolve(name, type) as Promise<never>
}

/** Verifies every DKIM signature of a raw message with mailauth, looking keys up in the test DNS server. */
export async function verifyDkim(raw: Buffer, dns: TestDnsServer) {
  const result = await dkimVerify(raw, { resolver: resolverOf(dns) })
  return result.results
}

/** SPF, DKIM and DMARC of a message as a receiving server checks them, from a loopback SMTP client. */
export function authenticateAsReceiver(raw: Buffer, envelopeFrom: string, dns: TestDnsServer) {
  return authenticate(raw, {
    ip: '127.0.0.1',
    helo: 'localhost',
    sender: envelopeFrom,
    mta: 'mx.example.org',
    resolver: resolverOf(dns),
    disableArc: true,
    disableBimi: true,
  })
}
