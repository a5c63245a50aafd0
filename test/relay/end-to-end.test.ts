import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createTransport } from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSubmissionHandler } from '../../src/modules/relay/handler.js'
import { verifyDkim } from '../helpers/dkim.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { curl, type Login, python, repliesIn, swaks } from './clients.js'
import { startRelay } from './harness.js'
import { attachmentBytes, buildMessage, writeMessage } from './messages.js'

const folder = mkdtempSync(path.join(tmpdir(), 'mailroom-relay-e2e-'))
const message = buildMessage()
const messageFile = writeMessage(folder, 'message.eml', message)
// swaks ends DATA with CRLF.CRLF after the file whatever the file ends with: its file leaves the last CRLF to it.
const swaksFile = writeMessage(folder, 'swaks.eml', message.subarray(0, -2))

let sink: SmtpSink
let env: ServerWithDns
let account: Account

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  account = await createAccount(env.server)
  await addVerifiedDomain(env.server, env.dns, account, 'sender.test')
})
afterAll(async () => {
  await env.close()
  await sink.close()
  rmSync(folder, { recursive: true, force: true })
})

const login = (mechanism: Login['mechanism'], username: string): Login => ({
  mechanism,
  username,
  password: account.secretKey,
})

describe('from an SMTP client to the recipient, through the relay and the outbox', () => {
  it('nodemailer, smtplib, curl and swaks each get their message delivered signed, attachment and headers intact', async () => {
    const relay = await startRelay({ handler: createSubmissionHandler(env.server.ctx) })
    const from = 'app@sender.test'

    await createTransport({
      host: '127.0.0.1',
      port: relay.starttlsPort,
      secure: false,
      requireTLS: true,
      auth: { user: 'plunk', pass: account.secretKey },
      tls: { rejectUnauthorized: false },
    }).sendMail({ envelope: { from, to: ['nodemailer@example.com'] }, raw: message })
    const smtplib = await python({
      port: relay.tlsPort,
      security: 'implicit',
      login: login('LOGIN', 'mailroom'),
      from,
      to: ['smtplib@example.com'],
      messageFile,
    })
    expect(smtplib.ok).toBe(true)
    const curled = await curl({
      port: relay.starttlsPort,
      security: 'starttls',
      login: login('PLAIN', 'plunk'),
      from,
      to: ['curl@example.com'],
      messageFile,
    })
    expect(curled.exitCode).toBe(0)
    const swaked = await swaks({
      port: relay.tlsPort,
      security: 'implicit',
      login: login('PLAIN', 'mailroom'),
      from,
      to: ['swaks@example.com'],
      messageFile: swaksFile,
    })
    expect(swaked.exitCode).toBe(0)
    expect(repliesIn(swaked.stdout, 250).at(-1)).toMatch(/^250 2\.0\.0 Queued as [0-9a-f-]{36}$/)

    const delivered = await sink.waitForMessages(4)
    expect(delivered.map((received) => received.envelope.to[0]).sort()).toEqual([
      'curl@example.com',
      'nodemailer@example.com',
      'smtplib@example.com',
      'swaks@example.com',
    ])
    for (const received of delivered) {
      expect(received.envelope.from).toBe(from)
      expect(received.parsed.messageId).toBe('<relay-test@sender.test>')
      expect(received.parsed.headers.get('x-custom-header')).toBe('kept as sent')
      expect(received.parsed.attachments[0]?.content.equals(attachmentBytes)).toBe(true)
      // Our signature in front of the client's bytes, which arrive unchanged.
      expect(received.raw.subarray(received.raw.length - message.length).equals(message)).toBe(true)
      expect(await verifyDkim(received.raw, env.dns)).toEqual([
        expect.objectContaining({ signingDomain: 'sender.test', status: expect.objectContaining({ result: 'pass' }) }),
      ])
    }
  })

  it('refuses in the conversation: a suppressed recipient at RCPT TO while the other is accepted', async () => {
    const relay = await startRelay({ handler: createSubmissionHandler(env.server.ctx) })
    const suppressed = await env.server.app.inject({
      method: 'POST',
      url: '/suppressions',
      headers: bearer(account.secretKey),
      payload: { email: 'gone@example.com', reason: 'bounce' },
    })
    expect(suppressed.statusCode).toBe(201)
    sink.reset()
    const result = await swaks({
      port: relay.starttlsPort,
      security: 'starttls',
      login: login('LOGIN', 'plunk'),
      from: 'app@sender.test',
      to: ['gone@example.com', 'kept@example.com'],
      messageFile: swaksFile,
    })
    expect(repliesIn(result.stdout, 550)).toEqual([
      '550 5.1.1 gone@example.com is suppressed: earlier mail to this address bounced permanently',
    ])
    const [received] = await sink.waitForMessages(1)
    expect(received?.envelope.to).toEqual(['kept@example.com'])
  })
})
