import { randomBytes, randomInt } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findFreePort } from '../../src/db/embedded.js'
import { type CliProcess, cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js'
import { setUpSender } from '../helpers/http-sender.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { attachmentBytes } from './messages.js'
import {
  type RelayCertificate,
  type RelayPorts,
  relayCertificateEnv,
  relayPortsOf,
  relayTransport,
  writeRelayCertificate,
} from './spawned.js'

const { start, dataDir } = cliSandbox()

const domain = 'scale-relay.example.test'
const from = `app@${domain}`
/** Messages per relay, each to two recipients: every one of them an email of its own. */
const messagesPerRelay = 15
const failedLoginLimit = 3
const redisUrl = process.env.TEST_REDIS_URL
/** After every email arrived, how long a duplicate is given to show up. */
const settleMs = 3_000

type ApiNode = { cli: CliProcess; ports: RelayPorts }

/** What AUTH answered: 235 when nodemailer logged in, else the reply code of the refusal. */
async function loginReply(transport: ReturnType<typeof relayTransport>): Promise<number> {
  try {
    await transport.verify()
    return 235
  } catch (err) {
    const { responseCode } = err as { responseCode?: number }
    if (responseCode === undefined) throw err
    return responseCode
  } finally {
    transport.close()
  }
}

describe('two api processes on one PostgreSQL server', () => {
  let databaseUrl: string
  let dns: TestDnsServer
  let sink: SmtpSink
  let certificate: RelayCertificate
  let nodes: ApiNode[]
  let secretKey: string

  beforeAll(async () => {
    databaseUrl = await createTestDatabase()
    dns = await startDnsServer()
    sink = await startSmtpSink()
    certificate = writeRelayCertificate(dataDir('mailroom-relay-scale-cert-'))
    const shared = {
      DATABASE_URL: databaseUrl,
      // One SECRET for every process, as the README asks: each opens the keys and DKIM keys another sealed.
      SECRET: randomBytes(32).toString('hex'),
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: sink.url,
      DNS_SERVERS: dns.address,
      LOG_LEVEL: 'info',
      FAILED_AUTH_LIMIT_PER_MINUTE: String(failedLoginLimit),
      ...(redisUrl && { REDIS_URL: redisUrl }),
      ...relayCertificateEnv(certificate),
    }
    const apiPorts = [await findFreePort(), await findFreePort()]
    const apis = apiPorts.map((port) =>
      start('api', { ...shared, PORT: String(port), DATA_DIR: dataDir('mailroom-relay-scale-api-') }),
    )
    const worker = start('worker', { ...shared, DATA_DIR: dataDir('mailroom-relay-scale-worker-') })
    await Promise.all([
      ...apis.map((api) => api.waitForOutput('Mailroom listening', 60_000)),
      worker.waitForOutput('worker started', 60_000),
    ])
    nodes = await Promise.all(apis.map(async (cli) => ({ cli, ports: await relayPortsOf(cli) })))
    secretKey = await setUpSender(`http://127.0.0.1:${apiPorts[0]}`, dns, domain)
  }, 120_000)
  afterAll(async () => {
    await sink?.close()
    await dns?.close()
  })

  it('each relay takes its share of the submissions, and the worker delivers every email once', async () => {
    const [first, second] = nodes
    if (!first || !second) throw new Error('two api processes expected')
    // Both processes, both listeners, two connections each, all at once.
    const transports = [
      relayTransport({
        port: first.ports.starttlsPort,
        security: 'starttls',
        secretKey,
        certificate: certificate.certificate,
        pool: true,
      }),
      relayTransport({
        port: second.ports.tlsPort,
        security: 'implicit',
        secretKey,
        certificate: certificate.certificate,
        pool: true,
      }),
    ]
    const expected: string[] = []
    const sent = await Promise.all(
      transports.flatMap((transport, relay) =>
        Array.from({ length: messagesPerRelay }, (_, index) => {
          const to = [`r${relay}m${index}a@example.org`, `r${relay}m${index}b@example.net`]
          expected.push(...to)
          return transport.sendMail({
            from,
            to,
            subject: `Scale-out ${relay}/${index}`,
            text: `Message ${index} through relay ${relay}.`,
            attachments: [{ filename: 'data.bin', content: attachmentBytes }],
          })
        }),
      ),
    )
    for (const transport of transports) transport.close()
    for (const info of sent) {
      expect(info.response).toMatch(/^250 2\.0\.0 /)
      expect(info.rejected).toEqual([])
    }

    await sink.waitForMessages(expected.length, 60_000)
    await delay(settleMs)
    expect(sink.messages.map((message) => message.envelope.to.join(',')).sort()).toEqual(expected.sort())
    for (const message of sink.messages) {
      expect(message.parsed.attachments[0]?.content.equals(attachmentBytes)).toBe(true)
    }

    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      const submitted = await client.query('SELECT count(*)::int AS count FROM submitted_messages')
      expect(submitted.rows).toEqual([{ count: 2 * messagesPerRelay }])
      const statuses = await client.query(
        'SELECT status, count(*)::int AS count FROM emails WHERE submitted_message_id IS NOT NULL GROUP BY status',
      )
      expect(statuses.rows).toEqual([{ status: 'SENT', count: expected.length }])
    } finally {
      await client.end()
    }
  }, 120_000)

  // Without REDIS_URL each process counts failed logins of its own, as the API does (README, rate limits).
  it.runIf(redisUrl)(
    'wrong passwords given to either relay count toward one failed-login limit per client address (REDIS_URL)',
    async () => {
      const [first, second] = nodes
      if (!first || !second) throw new Error('two api processes expected')
      // An address of loopback of its own per run: the counts outlive the test in the shared Redis.
      const address = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`
      const login = (node: ApiNode, password: string, localAddress?: string) =>
        loginReply(
          relayTransport({
            port: node.ports.tlsPort,
            security: 'implicit',
            secretKey: password,
            certificate: certificate.certificate,
            ...(localAddress && { localAddress }),
          }),
        )
      const wrong = `sk_${'0'.repeat(64)}`

      expect(await login(first, wrong, address)).toBe(535)
      expect(await login(second, wrong, address)).toBe(535)
      // The third failure from the address, counted in Redis with the other process's: the limit is reached.
      expect(await login(first, wrong, address)).toBe(535)
      expect(await login(first, secretKey, address)).toBe(421)
      // The other process learns of it from the count its own next failure reads, and refuses the right key too.
      expect(await login(second, wrong, address)).toBe(535)
      expect(await login(second, secretKey, address)).toBe(421)
      // Another address is not held back by it.
      expect(await login(second, secretKey)).toBe(235)
    },
    60_000,
  )
})
