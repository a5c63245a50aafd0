import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createTransport } from 'nodemailer'
import { afterAll, describe, expect, it } from 'vitest'
import { SmtpRefusal } from '../../src/mail/submission/handler.js'
import { curl, type Login, python, repliesIn, swaks } from './clients.js'
import { brokenKey, goodKey, rateLimitedKey, refusals, startRelay } from './harness.js'
import { buildMessage, writeMessage } from './messages.js'

const folder = mkdtempSync(path.join(tmpdir(), 'mailroom-relay-refusals-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const message = buildMessage()
const messageFile = writeMessage(folder, 'message.eml', message)
const plain: Login = { mechanism: 'PLAIN', username: 'plunk', password: goodKey }
const reply = (refusal: SmtpRefusal) => `${refusal.responseCode} ${refusal.message}`

describe('logging in', () => {
  it('answers AUTH before STARTTLS on the submission port with 530, without asking the application', async () => {
    const relay = await startRelay()
    const send = { port: relay.starttlsPort, login: plain, from: 'app@sender.test', to: ['user@example.com'] }
    const result = await swaks({ ...send, security: 'none', messageFile })
    expect(repliesIn(result.stdout, 530)).toEqual(['530 5.7.0 Must issue a STARTTLS command first'])
    const outcome = await python({ ...send, security: 'none', messageFile })
    expect(outcome).toMatchObject({ ok: false, stage: 'auth', code: 530 })
    expect(relay.recorder.calls).toEqual([])
  })

  it('answers MAIL before AUTH with 530 on both ports', async () => {
    const relay = await startRelay()
    const send = { from: 'app@sender.test', to: ['user@example.com'], messageFile }
    const starttls = await swaks({ ...send, port: relay.starttlsPort, security: 'starttls' })
    // PLAIN and LOGIN only: the password is a secret key, and no other mechanism carries it.
    expect(starttls.stdout).toMatch(/^<~ {2}250-AUTH PLAIN LOGIN$/m)
    expect(repliesIn(starttls.stdout, 530)).toEqual(['530 5.7.0 Authentication required'])
    const implicit = await curl({ ...send, port: relay.tlsPort, security: 'implicit' })
    expect(repliesIn(implicit.stderr, 530)).toEqual(['530 5.7.0 Authentication required'])
    expect(relay.recorder.calls).toEqual([])
  })

  it("answers a wrong key with the application's 535 and keeps the password out of the log", async () => {
    const relay = await startRelay()
    const wrong = { ...plain, password: 'sk_not_a_key_of_anyone' }
    const result = await swaks({
      port: relay.tlsPort,
      security: 'implicit',
      login: wrong,
      from: 'app@sender.test',
      to: ['user@example.com'],
      messageFile,
    })
    expect(repliesIn(result.stdout, 535)).toEqual([reply(refusals.badLogin)])
    const broken = await python({
      port: relay.starttlsPort,
      security: 'starttls',
      login: { ...plain, mechanism: 'LOGIN', password: brokenKey },
      from: 'app@sender.test',
      to: ['user@example.com'],
      messageFile,
    })
    // An application failure is a temporary one: the app retries later rather than dropping the mail.
    expect(broken).toMatchObject({ ok: false, stage: 'auth', code: 454, message: expect.stringMatching(/^4\.7\.0 /) })
    expect(relay.log.lines()).toContainEqual(expect.objectContaining({ msg: 'SMTP relay: login check failed' }))
    expect(relay.log.text()).not.toContain(brokenKey)
    expect(relay.log.text()).not.toContain('sk_not_a_key_of_anyone')
    expect(relay.recorder.accepted()).toEqual([])
  })

  it("answers a rate-limited address with the application's 421 and closes the connection", async () => {
    const relay = await startRelay()
    const result = await curl({
      port: relay.starttlsPort,
      security: 'starttls',
      login: { ...plain, password: rateLimitedKey },
      from: 'app@sender.test',
      to: ['user@example.com'],
      messageFile,
    })
    expect(repliesIn(result.stderr, 421)).toEqual([reply(refusals.rateLimited)])
    expect(result.stderr).not.toContain('> MAIL FROM')
    expect(result.exitCode).not.toBe(0)
  })
})

describe('refusals at the command they concern', () => {
  it('refuses MAIL FROM on an unverified domain with 550 5.7.1 and its reason', async () => {
    const relay = await startRelay()
    const outcome = await python({
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: 'app@unverified.test',
      to: ['user@example.com'],
      messageFile,
    })
    expect(outcome).toMatchObject({ ok: false, stage: 'send', code: 550, message: refusals.unverifiedSender.message })
    expect(relay.recorder.stepsOf('checkRecipient')).toEqual([])
  })

  it('refuses the null sender (MAIL FROM:<>), which is for bounces, without asking the application', async () => {
    const relay = await startRelay()
    const outcome = await python({
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: '',
      to: ['user@example.com'],
      messageFile,
    })
    expect(outcome).toMatchObject({
      ok: false,
      stage: 'send',
      code: 553,
      message: '5.1.7 A sender address is required (MAIL FROM:<> is for bounces)',
    })
    expect(relay.recorder.stepsOf('checkSender')).toEqual([])
  })

  it('refuses a suppressed recipient with 550 5.1.1 and delivers to the others only', async () => {
    const relay = await startRelay()
    const transport = createTransport({
      host: '127.0.0.1',
      port: relay.starttlsPort,
      requireTLS: true,
      auth: { user: 'mailroom', pass: goodKey },
      tls: { ca: relay.certificate, servername: 'relay.test' },
    })
    const info = await transport.sendMail({
      envelope: { from: 'app@sender.test', to: ['user@example.com', 'suppressed@example.com', 'other@example.com'] },
      raw: message,
    })
    transport.close()
    expect(info.accepted).toEqual(['user@example.com', 'other@example.com'])
    expect(info.rejected).toEqual(['suppressed@example.com'])
    expect(info.rejectedErrors?.[0]?.response).toBe(reply(refusals.suppressed))
    expect(relay.recorder.accepted().map((submission) => submission.recipients)).toEqual([
      ['user@example.com', 'other@example.com'],
    ])
  })

  it('refuses a recipient over the billing cap with 452 4.3.1', async () => {
    const relay = await startRelay()
    const result = await curl({
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: 'app@sender.test',
      to: ['over-cap@example.com'],
      messageFile,
    })
    expect(repliesIn(result.stderr, 452)).toEqual([reply(refusals.overCap)])
    expect(relay.recorder.accepted()).toEqual([])
  })

  it('takes maxRecipients recipients and answers 452 4.5.3 to the rest, without asking the application', async () => {
    const relay = await startRelay({ maxRecipients: 3 })
    const to = ['r1@example.com', 'r2@example.com', 'r3@example.com', 'r4@example.com', 'r5@example.com']
    const outcome = await python({
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: 'app@sender.test',
      to,
      messageFile,
    })
    const tooMany = [452, '4.5.3 Too many recipients (at most 3 a message)']
    expect(outcome).toMatchObject({ ok: true, refused: { 'r4@example.com': tooMany, 'r5@example.com': tooMany } })
    expect(relay.recorder.stepsOf('checkRecipient')).toHaveLength(3)
    expect(relay.recorder.accepted().map((submission) => submission.recipients)).toEqual([to.slice(0, 3)])
  })

  it("answers accept's refusal as it is, and any other failure of accept with a logged 451", async () => {
    const relay = await startRelay()
    const send = {
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: 'app@sender.test',
      to: ['user@example.com'],
      messageFile,
    } as const
    relay.recorder.failAcceptWith(new SmtpRefusal(550, '5.7.1 The project is disabled'))
    expect(await python(send)).toMatchObject({ ok: false, code: 550, message: '5.7.1 The project is disabled' })
    relay.recorder.failAcceptWith(new Error('connection to PostgreSQL lost'))
    expect(await python(send)).toMatchObject({
      ok: false,
      code: 451,
      message: '4.3.0 Temporary failure, try again later',
    })
    expect(relay.log.lines()).toContainEqual(
      expect.objectContaining({ msg: 'SMTP relay: the application failed', command: 'DATA' }),
    )
  })
})

describe('the message as it arrives', () => {
  it('advertises SIZE and answers a larger message 552: at MAIL FROM if declared, else after DATA', async () => {
    const relay = await startRelay({ maxMessageBytes: 16 * 1024 })
    const send = {
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: 'app@sender.test',
      to: ['user@example.com'],
      messageFile,
    } as const
    // python3 declares SIZE= in MAIL FROM, as the extension lets it.
    const declared = await python(send)
    expect(declared).toMatchObject({ ok: false, stage: 'send', code: 552 })
    const ehlo = await swaks({ ...send, messageFile: writeMessage(folder, 'big.eml', message) }, [
      '--quit-after',
      'EHLO',
    ])
    expect(ehlo.stdout).toMatch(/^<~ {2}250-SIZE 16384$|^<~ {2}250 SIZE 16384$/m)
    // swaks does not declare it: the message is read to its end, then refused.
    const undeclared = await swaks(send)
    expect(repliesIn(undeclared.stdout, 552)).toEqual(['552 5.3.4 Message exceeds the maximum size of 16384 bytes'])
    expect(relay.recorder.accepted()).toEqual([])
  })

  it('refuses bare LF line endings with 550 5.6.0 and says so', async () => {
    const relay = await startRelay()
    const bareLf = writeMessage(
      folder,
      'bare-lf.eml',
      Buffer.from(message.toString('latin1').replaceAll('\r\n', '\n'), 'latin1'),
    )
    const result = await curl({
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: 'app@sender.test',
      to: ['user@example.com'],
      messageFile: bareLf,
    })
    expect(repliesIn(result.stderr, 550)).toEqual([
      '550 5.6.0 Message refused: it has bare LF line endings; end every line with CRLF (RFC 5321 2.3.8)',
    ])
    expect(relay.recorder.accepted()).toEqual([])
  })

  it('refuses 8-bit bytes unless MAIL FROM declared BODY=8BITMIME, and takes them when it did', async () => {
    const relay = await startRelay()
    const eightBit = buildMessage({ subject: 'Ünïcödé', text: ['Grüße aus Köln'] })
    const file = writeMessage(folder, '8bit.eml', eightBit)
    const send = {
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: 'app@sender.test',
      to: ['user@example.com'],
      messageFile: file,
    } as const
    const undeclared = await curl(send)
    expect(repliesIn(undeclared.stderr, 554)).toEqual([
      '554 5.6.0 Message refused: it has 8-bit bytes but MAIL FROM did not declare BODY=8BITMIME (RFC 6152)',
    ])
    expect(relay.recorder.accepted()).toEqual([])
    const declared = await python({ ...send, mailOptions: ['BODY=8BITMIME'] })
    expect(declared).toMatchObject({ ok: true, refused: {} })
    expect(relay.recorder.accepted()[0]?.raw.equals(eightBit)).toBe(true)
  })

  it('refuses a header section with a line that is no field, a NUL or a bare CR with 554 5.6.0', async () => {
    const relay = await startRelay()
    const send = {
      port: relay.tlsPort,
      security: 'implicit',
      login: plain,
      from: 'app@sender.test',
      to: ['user@example.com'],
    } as const
    const cases = {
      'no-colon.eml': buildMessage({ headers: ['X-Note: fine', 'Bcc victim@example.com'] }),
      'nul.eml': buildMessage({ headers: ['X-Note: a\0b'] }),
      'bare-cr.eml': buildMessage({ headers: ['X-Note: value\rBcc: injected@example.com'] }),
      'continuation-first.eml': Buffer.concat([Buffer.from(' folded: before any field\r\n'), message]),
    }
    const replies = []
    for (const [name, bytes] of Object.entries(cases)) {
      const result = await curl({ ...send, messageFile: writeMessage(folder, name, bytes) })
      replies.push(...repliesIn(result.stderr, 554))
    }
    expect(replies).toEqual([
      '554 5.6.0 Message refused: header line 7 is not a "Name: value" field or its continuation',
      '554 5.6.0 Message refused: it contains NUL bytes',
      '554 5.6.0 Message refused: it has a CR not followed by LF',
      '554 5.6.0 Message refused: header line 1 is not a "Name: value" field or its continuation',
    ])
    expect(relay.recorder.accepted()).toEqual([])
  })
})
