import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { findFreePort, startEmbeddedPostgres } from '../../src/db/embedded.js'
import { cliSandbox } from '../helpers/cli-process.js'
import { startDnsServer } from '../helpers/dns-server.js'
import { setUpSender } from '../helpers/http-sender.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { attachmentBytes, buildMessage } from './messages.js'
import { loggedIn } from './raw-smtp.js'
import { relayCertificateEnv, relayPortsOf, relayTransport, writeRelayCertificate } from './spawned.js'

const { start, dataDir: newDataDir } = cliSandbox()

const domain = 'crash-relay.example.test'
const from = `app@${domain}`
const recipients = ['ada@example.org', 'bob@example.net']
const dropped = 'dropped@example.org'
const ready = 'Mailroom listening'
/**
 * A worker that found the receiving server down before the kill retries 30 s (±20 %) after that attempt; the
 * restarted process keeps that schedule. A minute and a half leaves room for a slow start on a loaded machine.
 */
const deliveryBoundMs = 90_000
/** After both copies arrived, how long a third (a duplicate) is given to show up. */
const settleMs = 3_000

describe('the SMTP relay across a SIGKILL', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('a message answered 250 and killed before delivery reaches each recipient once after the restart; a DATA cut off stores nothing', async () => {
    const dns = await startDnsServer()
    cleanups.push(() => dns.close())
    const dataDir = newDataDir('mailroom-relay-crash-')
    const certificate = writeRelayCertificate(newDataDir('mailroom-relay-crash-cert-'))
    // The receiving server is down until after the kill: nothing can be delivered before it.
    const sinkPort = await findFreePort()
    const port = String(await findFreePort())
    const env = {
      PORT: port,
      DATA_DIR: dataDir,
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: `smtp://127.0.0.1:${sinkPort}`,
      DNS_SERVERS: dns.address,
      LOG_LEVEL: 'info',
      ...relayCertificateEnv(certificate),
    }

    const first = start('start', env)
    await first.waitForOutput(ready, 60_000)
    const ports = await relayPortsOf(first)
    const secretKey = await setUpSender(`http://127.0.0.1:${port}`, dns, domain)
    const transport = relayTransport({
      port: ports.starttlsPort,
      security: 'starttls',
      secretKey,
      certificate: certificate.certificate,
    })
    const info = await transport.sendMail({
      from,
      to: recipients,
      subject: 'Killed right after the 250',
      text: 'This message was accepted, then the process died.',
      headers: { 'X-Custom-Header': 'kept as sent' },
      attachments: [{ filename: 'report.bin', content: attachmentBytes }],
    })
    transport.close()
    expect(info.accepted).toEqual(recipients)
    expect(info.response).toMatch(/^250 2\.0\.0 /)
    first.child.kill('SIGKILL')
    await first.exited

    const sink: SmtpSink = await startSmtpSink({ port: sinkPort })
    cleanups.push(() => sink.close())
    const second = start('start', env)
    await second.waitForOutput(ready, 60_000)
    const restartedAt = Date.now()
    await sink.waitForMessages(recipients.length, deliveryBoundMs)
    const deliveredMs = Date.now() - restartedAt
    await delay(settleMs)

    expect(sink.messages.map((message) => message.envelope.to.join(',')).sort()).toEqual(recipients)
    for (const message of sink.messages) {
      expect(message.envelope.from).toBe(from)
      expect(message.parsed.subject).toBe('Killed right after the 250')
      expect(message.parsed.headers.get('x-custom-header')).toBe('kept as sent')
      expect(message.parsed.attachments).toHaveLength(1)
      expect(message.parsed.attachments[0]?.content.equals(attachmentBytes)).toBe(true)
    }

    // A client that hangs up halfway through its DATA: the message never ended, so it was never taken.
    const restartedPorts = await relayPortsOf(second)
    const raw = await loggedIn(restartedPorts.tlsPort, secretKey)
    raw.write(`MAIL FROM:<${from}>\r\n`)
    expect(await raw.reply()).toMatch(/^250/)
    raw.write(`RCPT TO:<${dropped}>\r\n`)
    expect(await raw.reply()).toMatch(/^250/)
    raw.write('DATA\r\n')
    expect(await raw.reply()).toMatch(/^354/)
    const message = buildMessage({ to: dropped, subject: 'Cut off' })
    raw.write(message.subarray(0, message.length / 2))
    // Let the server read what was sent before the connection goes.
    await delay(200)
    raw.destroy()
    await raw.closed
    await delay(1_000)
    expect(await second.stop('SIGTERM')).toBe(0)
    expect(sink.messages).toHaveLength(recipients.length)

    const database = await startEmbeddedPostgres(dataDir, () => {})
    cleanups.push(() => database.stop())
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const emails = await client.query(
        'SELECT to_email, status, submitted_message_id IS NOT NULL AS relayed FROM emails ORDER BY to_email',
      )
      expect(emails.rows).toEqual(recipients.map((to) => ({ to_email: to, status: 'SENT', relayed: true })))
      const submitted = await client.query('SELECT count(*)::int AS count FROM submitted_messages')
      expect(submitted.rows).toEqual([{ count: 1 }])
    } finally {
      await client.end()
    }
    console.info(`relay crash: both recipients had the message ${deliveredMs} ms after the restart, once each`)
  }, 240_000)
})
