import { createTransport } from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findFreePort } from '../../src/db/embedded.js'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import { type BuiltInstall, cliSandbox } from '../helpers/cli-process.js'
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js'
import { uniqueEmail } from '../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../helpers/http-receiver.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { attachmentBytes } from '../relay/messages.js'
import { relayCertificateEnv, relayPortsOf, relayTransport, writeRelayCertificate } from '../relay/spawned.js'

/*
 * The install an operator runs: `.ci/run` builds a copy of the repository, prunes its dev dependencies and
 * names it here, with the Node 24 binary to run it on. The server must start with every optional feature on
 * (inbound SMTP, a real transport, the Redis rate-limit store, the SMTP relay with certificate files) and accept and
 * deliver mail.
 */
const installDir = process.env.PRODUCTION_INSTALL_DIR
const installNode = process.env.PRODUCTION_NODE
const redisUrl = process.env.TEST_REDIS_URL

const { start, dataDir } = cliSandbox()

type Json = Record<string, unknown>

function client(baseUrl: string) {
  let cookie = ''
  return async (method: string, url: string, body?: Json, key?: string) => {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(key ? { authorization: `Bearer ${key}` } : cookie ? { cookie } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    })
    const setCookie = response.headers.get('set-cookie')
    if (setCookie) cookie = setCookie.split(';')[0] ?? ''
    return { status: response.status, headers: response.headers, json: (await response.json()) as Json }
  }
}

describe.runIf(installDir && installNode && redisUrl)('a pruned production install on Node 24', () => {
  const install: BuiltInstall = { dir: installDir ?? '', node: installNode ?? '' }
  let dns: TestDnsServer
  let sink: SmtpSink
  let ses: HttpReceiver

  beforeAll(async () => {
    dns = await startDnsServer()
    sink = await startSmtpSink()
    ses = await startHttpReceiver()
  })
  afterAll(async () => {
    await sink.close()
    await ses.close()
    await dns.close()
  })

  /** Starts the install, makes an account with a verified domain, and sends one email through the API. */
  async function startAndSend(transportEnv: Record<string, string>) {
    const port = await findFreePort()
    const inboundPort = await findFreePort()
    const server = start(
      'start',
      {
        DATA_DIR: dataDir('mailroom-production-'),
        PORT: String(port),
        DNS_SERVERS: dns.address,
        REDIS_URL: redisUrl ?? '',
        INBOUND_SMTP_PORT: String(inboundPort),
        INBOUND_SMTP_HOST: '127.0.0.1',
        ...transportEnv,
      },
      { install },
    )
    await server.waitForOutput('Mailroom listening', 60_000)
    expect(server.output()).toContain('inbound SMTP receiver listening')
    const call = client(`http://127.0.0.1:${port}`)

    expect((await call('GET', '/health')).status).toBe(200)
    // The dashboard, built before the prune, is served by the pruned install.
    const dashboard = await fetch(`http://127.0.0.1:${port}/app/contacts`)
    expect(dashboard.status).toBe(200)
    expect(await dashboard.text()).toContain('<div id="root">')
    expect(
      (await call('POST', '/auth/signup', { email: uniqueEmail(), password: 'correct horse battery' })).status,
    ).toBe(201)
    const project = await call('POST', '/users/@me/projects', { name: 'Production check' })
    expect(project.status).toBe(201)
    const secretKey = String(project.json.secret)

    const domainName = `${uniqueEmail('d').split('@')[0]}.example.org`
    const added = await call('POST', '/domains', { domain: domainName }, secretKey)
    expect(added.status).toBe(201)
    const domain = added.json as unknown as DomainView
    for (const record of domain.records.filter((r) => r.type === 'TXT')) dns.set(record.name, 'TXT', [record.value])
    const verified = await call('GET', `/domains/${domain.id}/verify`, undefined, secretKey)
    expect(verified.json.status).toBe('VERIFIED')

    const sent = await call(
      'POST',
      '/v1/send',
      { to: 'reader@example.net', subject: 'Production check', body: '<p>hello</p>', from: `hello@${domainName}` },
      secretKey,
    )
    expect(sent.status).toBe(200)
    // The rate limit answers from the Redis store.
    expect(sent.headers.get('ratelimit-limit')).toBeTruthy()

    // The inbound receiver checks SPF, DKIM and DMARC with mailauth, and stores the message before its 250.
    const inbound = await createTransport({ host: '127.0.0.1', port: inboundPort }).sendMail({
      from: 'someone@example.net',
      to: `support@${domainName}`,
      subject: 'inbound check',
      text: 'hello',
    })
    expect(inbound.accepted).toEqual([`support@${domainName}`])
    return { server, secretKey, domainName }
  }

  it('delivers through SMTP, and takes mail over its SMTP relay with real certificate files', async () => {
    const certificate = writeRelayCertificate(dataDir('mailroom-production-cert-'))
    const { server, secretKey, domainName } = await startAndSend({
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: sink.url,
      ...relayCertificateEnv(certificate),
    })
    const [message] = await sink.waitForMessages(1, 30_000)
    expect(message?.parsed.subject).toBe('Production check')
    expect(message?.parsed.headers.get('dkim-signature')).toBeTruthy()

    // The relay's runtime dependencies (selfsigned, @zone-eu/mailsplit, libmime) survived the prune.
    const ports = await relayPortsOf(server)
    const transport = relayTransport({
      port: ports.starttlsPort,
      security: 'starttls',
      secretKey,
      certificate: certificate.certificate,
    })
    const relayed = await transport.sendMail({
      from: `app@${domainName}`,
      to: 'relayed@example.net',
      subject: 'Production relay check',
      text: 'hello over SMTP',
      attachments: [{ filename: 'data.bin', content: attachmentBytes }],
    })
    transport.close()
    expect(relayed.response).toMatch(/^250 /)
    const received = (await sink.waitForMessages(2, 30_000)).find(
      (arrived) => arrived.envelope.to[0] === 'relayed@example.net',
    )
    expect(received?.parsed.subject).toBe('Production relay check')
    expect(received?.parsed.attachments[0]?.content.equals(attachmentBytes)).toBe(true)
    expect(received?.parsed.headers.get('dkim-signature')).toBeTruthy()
    expect(await server.stop('SIGTERM')).toBe(0)
  })

  it('makes the relay a development certificate (selfsigned) when the transport is capture and no files are given', async () => {
    const port = await findFreePort()
    const server = start(
      'start',
      {
        DATA_DIR: dataDir('mailroom-production-'),
        PORT: String(port),
        MAIL_TRANSPORT: 'capture',
        REDIS_URL: redisUrl ?? '',
      },
      { install },
    )
    await server.waitForOutput('Mailroom listening', 60_000)
    expect(server.output()).toContain('SMTP relay: using a self-signed certificate')
    const ports = await relayPortsOf(server)
    const call = client(`http://127.0.0.1:${port}`)
    expect(
      (await call('POST', '/auth/signup', { email: uniqueEmail(), password: 'correct horse battery' })).status,
    ).toBe(201)
    const project = await call('POST', '/users/@me/projects', { name: 'Development relay' })
    const transport = createTransport({
      host: '127.0.0.1',
      port: ports.tlsPort,
      secure: true,
      auth: { user: 'mailroom', pass: String(project.json.secret) },
      // The generated certificate is trusted by no one: development clients are told to skip verification.
      tls: { rejectUnauthorized: false },
    })
    // TLS with the generated certificate, then AUTH with the project's secret key.
    expect(await transport.verify()).toBe(true)
    transport.close()
    expect(await server.stop('SIGTERM')).toBe(0)
  })

  it('delivers through SES in SES_REGION', async () => {
    ses.respondWith(() => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ MessageId: 'ses-production-check' }),
    }))
    const { server } = await startAndSend({
      MAIL_TRANSPORT: 'ses',
      SES_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDPRODUCTIONCHECK',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_ENDPOINT_URL_SESV2: ses.url,
    })
    const [request] = await ses.waitForRequests(1, 30_000)
    if (!request) throw new Error('SES received nothing')
    expect(request.url).toBe('/v2/email/outbound-emails')
    expect(request.headers.authorization).toContain('/eu-west-1/ses/aws4_request')
    const { Content } = request.json as { Content: { Raw: { Data: string } } }
    const raw = Buffer.from(Content.Raw.Data, 'base64')
    expect(raw.toString()).toContain('Subject: Production check')
    expect(await server.stop('SIGTERM')).toBe(0)
  })
})
