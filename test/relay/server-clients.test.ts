import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { simpleParser } from 'mailparser'
import { createTransport } from 'nodemailer'
import { afterAll, describe, expect, it } from 'vitest'
import type { Submission } from '../../src/mail/submission/handler.js'
import { curl, type Login, python, type Security, swaks } from './clients.js'
import { goodKey, projectId, type Relay, startRelay } from './harness.js'
import { attachmentBytes, buildMessage, dottedLines, writeMessage } from './messages.js'

const folder = mkdtempSync(path.join(tmpdir(), 'mailroom-relay-clients-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const message = buildMessage()
const messageFile = writeMessage(folder, 'message.eml', message)
// swaks ends DATA with CRLF.CRLF after the file whatever the file ends with: its file leaves the last CRLF to it.
const swaksFile = writeMessage(folder, 'swaks.eml', message.subarray(0, -2))

const portOf = (relay: Relay, security: Security) => (security === 'starttls' ? relay.starttlsPort : relay.tlsPort)
const login = (mechanism: Login['mechanism'], username: string): Login => ({ mechanism, username, password: goodKey })

/** What every client's message must be when the application gets it: the bytes sent, unchanged. */
async function expectDeliveredAsSent(submission: Submission | undefined, recipients: string[]) {
  expect(submission).toMatchObject({
    projectId,
    mailFrom: 'app@sender.test',
    recipients,
    remoteAddress: '127.0.0.1',
    // One client at a time: no other transaction to wait for.
    openTransactions: 1,
  })
  if (!submission) return
  // Dot-stuffing undone: the dotted lines arrive as written, so the whole message is byte for byte the file.
  expect(submission.raw.equals(message)).toBe(true)
  expect(submission.raw.toString('latin1')).toContain(`\r\n${dottedLines.join('\r\n')}\r\n`)
  const parsed = await simpleParser(submission.raw)
  expect(parsed.headers.get('x-custom-header')).toBe('kept as sent')
  expect(parsed.attachments[0]?.content.equals(attachmentBytes)).toBe(true)
}

describe('real SMTP clients send through the relay', () => {
  it('swaks logs in with PLAIN and LOGIN on both ports and its messages arrive as sent', async () => {
    const relay = await startRelay()
    const sends = [
      { security: 'starttls', login: login('PLAIN', 'plunk') },
      { security: 'implicit', login: login('LOGIN', 'mailroom') },
      { security: 'starttls', login: login('LOGIN', 'plunk') },
      { security: 'implicit', login: login('PLAIN', 'mailroom') },
    ] as const
    for (const send of sends) {
      const port = portOf(relay, send.security)
      const result = await swaks({
        ...send,
        port,
        from: 'app@sender.test',
        to: ['user@example.com'],
        messageFile: swaksFile,
      })
      expect(result.stdout).toMatch(/^<~ {2}235 /m)
      expect(result.stdout).toMatch(/^<~ {2}250 2\.0\.0 Queued as email-\d+-0$/m)
      expect(result.exitCode).toBe(0)
    }
    expect(relay.recorder.stepsOf('authenticate')).toEqual(
      sends.map((send) => ({
        step: 'authenticate',
        username: send.login.username,
        password: goodKey,
        remoteAddress: '127.0.0.1',
      })),
    )
    const accepted = relay.recorder.accepted()
    expect(accepted).toHaveLength(4)
    for (const submission of accepted) await expectDeliveredAsSent(submission, ['user@example.com'])
  })

  it('curl --ssl-reqd sends with PLAIN and LOGIN, over STARTTLS (smtp://) and implicit TLS (smtps://)', async () => {
    const relay = await startRelay()
    for (const [security, mechanism] of [
      ['starttls', 'PLAIN'],
      ['implicit', 'LOGIN'],
      ['starttls', 'LOGIN'],
      ['implicit', 'PLAIN'],
    ] as const) {
      const result = await curl({
        port: portOf(relay, security),
        security,
        login: login(mechanism, 'plunk'),
        from: 'app@sender.test',
        to: ['user@example.com', 'other@example.com'],
        messageFile,
      })
      expect(result.stderr).toContain(`> AUTH ${mechanism}`)
      expect(result.stderr).toMatch(/^< 250 2\.0\.0 Queued as email-\d+-0 and 1 more$/m)
      expect(result.exitCode).toBe(0)
    }
    const accepted = relay.recorder.accepted()
    expect(accepted).toHaveLength(4)
    for (const submission of accepted) {
      await expectDeliveredAsSent(submission, ['user@example.com', 'other@example.com'])
    }
  })

  it("python3's smtplib logs in after starttls() or over SMTP_SSL and sends", async () => {
    const relay = await startRelay()
    for (const [security, mechanism] of [
      ['starttls', 'LOGIN'],
      ['implicit', 'PLAIN'],
    ] as const) {
      const outcome = await python({
        port: portOf(relay, security),
        security,
        login: login(mechanism, 'plunk'),
        from: 'app@sender.test',
        to: ['user@example.com'],
        messageFile,
      })
      expect(outcome).toMatchObject({ ok: true, refused: {} })
    }
    const accepted = relay.recorder.accepted()
    expect(accepted).toHaveLength(2)
    for (const submission of accepted) await expectDeliveredAsSent(submission, ['user@example.com'])
  })

  it('nodemailer sends composed mail and raw mail, verifying the certificate, on both ports', async () => {
    const relay = await startRelay()
    for (const [security, authMethod] of [
      ['starttls', 'PLAIN'],
      ['implicit', 'LOGIN'],
    ] as const) {
      const transport = createTransport({
        host: '127.0.0.1',
        port: portOf(relay, security),
        secure: security === 'implicit',
        requireTLS: security === 'starttls',
        auth: { user: 'plunk', pass: goodKey },
        authMethod,
        // Verifies the certificate: a different one fails the handshake.
        tls: { ca: relay.certificate, servername: 'relay.test' },
      })
      const composed = await transport.sendMail({
        from: 'App <app@sender.test>',
        to: 'user@example.com',
        subject: 'Composed by nodemailer',
        text: 'Hello',
        headers: { 'X-Custom-Header': 'kept as sent' },
        attachments: [{ filename: 'data.bin', content: attachmentBytes }],
      })
      expect(composed.response).toMatch(/^250 2\.0\.0 Queued as email-\d+-0$/)
      const raw = await transport.sendMail({
        envelope: { from: 'app@sender.test', to: ['user@example.com'] },
        raw: message,
      })
      expect(raw.accepted).toEqual(['user@example.com'])
      transport.close()
    }
    const accepted = relay.recorder.accepted()
    expect(accepted).toHaveLength(4)
    for (const submission of [accepted[0], accepted[2]]) {
      const parsed = await simpleParser(submission?.raw ?? Buffer.alloc(0))
      expect(parsed.subject).toBe('Composed by nodemailer')
      expect(parsed.headers.get('x-custom-header')).toBe('kept as sent')
      expect(parsed.attachments[0]?.content.equals(attachmentBytes)).toBe(true)
    }
    await expectDeliveredAsSent(accepted[1], ['user@example.com'])
    await expectDeliveredAsSent(accepted[3], ['user@example.com'])
  })

  it('serves honest pipelining: swaks --pipeline sends MAIL, RCPT and DATA in one go', async () => {
    const relay = await startRelay()
    const result = await swaks(
      {
        port: relay.tlsPort,
        security: 'implicit',
        login: login('PLAIN', 'plunk'),
        from: 'app@sender.test',
        to: ['user@example.com', 'suppressed@example.com', 'other@example.com'],
        messageFile: swaksFile,
      },
      ['--pipeline'],
    )
    expect(result.stdout).toContain('250 2.0.0 Queued as')
    expect(result.stdout).toContain('550 5.1.1 Recipient suppressed@example.com is suppressed: it bounced')
    await expectDeliveredAsSent(relay.recorder.accepted()[0], ['user@example.com', 'other@example.com'])
  })
})
