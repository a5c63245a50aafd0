import { expect } from 'vitest'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import type { ProjectView } from '../../src/modules/projects/schemas.js'
import type { TestDnsServer } from './dns-server.js'
import { publishDkim } from './domains.js'
import { sessionCookie, uniqueEmail } from './factories.js'
import type { SmtpSink } from './smtp-sink.js'

/**
 * The environment of a spawned server (`mailroom start`, `api`, `worker`) listening on `port` that delivers to
 * `sink` and checks sender domains on `dns`, with room for any load.
 */
export function senderEnv(sink: SmtpSink, dns: TestDnsServer, port: string): Record<string, string> {
  return {
    PORT: port,
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: sink.url,
    DNS_SERVERS: dns.address,
    RATE_LIMIT_PER_MINUTE: '100000',
  }
}

/** POSTs JSON and returns the answer's body; throws on any status but 2xx. */
export async function postJson<T>(url: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

/**
 * Signs up, creates a project and verifies a sender domain through the HTTP API of a running server (a spawned
 * process), as an operator would; returns the project's secret key.
 */
export async function setUpSender(base: string, dns: TestDnsServer, domain: string): Promise<string> {
  const signup = await fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: uniqueEmail('sender'), password: 'a sender of test mail' }),
  })
  expect(signup.status).toBe(201)
  const cookie = sessionCookie(signup.headers.get('set-cookie') ?? undefined)
  const project = await postJson<ProjectView>(`${base}/users/@me/projects`, { name: 'Sender' }, { cookie })
  const auth = { authorization: `Bearer ${project.secret}` }
  const added = await postJson<DomainView>(`${base}/domains`, { domain }, auth)
  publishDkim(dns, added)
  const verified = await fetch(`${base}/domains/${added.id}/verify`, { headers: auth })
  expect(((await verified.json()) as DomainView).status).toBe('VERIFIED')
  return project.secret
}
