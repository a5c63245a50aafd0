import { generateKeyPairSync } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
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

/** Verifies every DKIM signature of a raw message with mailauth, looking keys up in the test DNS server. */
export async function verifyDkim(raw: Buffer, dns: TestDnsServer) {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 })
  resolver.setServers([dns.address])
  const result = await dkimVerify(raw, {
    resolver: (name: string, type: string) => resolver.resolve(name, type) as Promise<never>,
  })
  return result.results
}
