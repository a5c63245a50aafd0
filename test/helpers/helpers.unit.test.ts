import { randomBytes } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { TCPClient } from 'dns2'
import { createTransport, type NodemailerError } from 'nodemailer'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startDnsServer, type TestDnsServer } from './dns-server.js'
import { type HttpReceiver, startHttpReceiver } from './http-receiver.js'
import { type SmtpSink, startSmtpSink } from './smtp-sink.js'

describe('startSmtpSink', () => {
  let sink: SmtpSink

  beforeAll(async () => {
    sink = await startSmtpSink({
      failWith: (rcpt) => {
        if (rcpt.startsWith('bounce@')) return { code: 550, message: 'No such user' }
        if (rcpt.startsWith('later@')) return { code: 451, message: 'Try again later' }
        return undefined
      },
    })
  })
  afterEach(() => sink.reset())
  afterAll(() => sink.close())

  it('records a multipart message with its envelope, parsed parts and exact attachment bytes', async () => {
    const attachment = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, byte) => byte)), randomBytes(4096)])
    const subject = 'Grüße aus Köln ✉ 测试'
    await createTransport(sink.url).sendMail({
      from: 'sender@mailroom.test',
      to: ['alice@example.test', 'bob@example.test'],
      subject,
      text: 'Hello in plain text',
      html: '<p>Hello in <b>HTML</b></p>',
      attachments: [{ filename: 'blob.bin', content: attachment, contentType: 'application/octet-stream' }],
    })

    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope).toEqual({
      from: 'sender@mailroom.test',
      to: ['alice@example.test', 'bob@example.test'],
    })
    expect(message?.parsed.subject).toBe(subject)
    expect(message?.parsed.text).toBe('Hello in plain text')
    expect(message?.parsed.html).toBe('<p>Hello in <b>HTML</b></p>')
    expect(message?.parsed.attachments).toHaveLength(1)
    expect(message?.parsed.attachments[0]?.filename).toBe('blob.bin')
    expect(message?.parsed.attachments[0]?.content.equals(attachment)).toBe(true)
  })

  it('keeps the raw message byte for byte, with SMTP dot-stuffing undone', async () => {
    const raw = Buffer.from(
      [
        'From: sender@mailroom.test',
        'To: alice@example.test',
        'Subject: raw',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
        '',
        '.a line that starts with a dot',
        'ünïcödé body',
        '',
      ].join('\r\n'),
    )
    await createTransport(sink.url).sendMail({
      envelope: { from: 'sender@mailroom.test', to: ['alice@example.test'] },
      raw,
    })

    const [message] = await sink.waitForMessages(1)
    expect(message?.raw.equals(raw)).toBe(true)
    expect(message?.parsed.text).toBe('.a line that starts with a dot\nünïcödé body\n')
  })

  it('records the null sender of a bounce as an empty from', async () => {
    await createTransport(sink.url).sendMail({
      envelope: { from: '', to: ['alice@example.test'] },
      raw: 'Subject: bounce\r\n\r\nundeliverable\r\n',
    })

    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope).toEqual({ from: '', to: ['alice@example.test'] })
  })

  it('accepts any AUTH credentials and records them', async () => {
    await createTransport({
      host: '127.0.0.1',
      port: sink.port,
      auth: { user: 'relay-user', pass: 'relay-pass' },
    }).sendMail({ from: 'sender@mailroom.test', to: 'alice@example.test', text: 'authenticated' })

    const [message] = await sink.waitForMessages(1)
    expect(message?.auth).toEqual({ username: 'relay-user', password: 'relay-pass' })
  })

  it('failWith refuses chosen recipients with 550 while delivering to the others', async () => {
    const info = await createTransport(sink.url).sendMail({
      from: 'sender@mailroom.test',
      to: ['alice@example.test', 'bounce@example.test'],
      text: 'partly rejected',
    })

    expect(info.accepted).toEqual(['alice@example.test'])
    expect(info.rejected).toEqual(['bounce@example.test'])
    expect(info.rejectedErrors?.[0]?.responseCode).toBe(550)
    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.to).toEqual(['alice@example.test'])
  })

  it('failWith makes sendMail reject with the scripted code when every recipient is refused', async () => {
    const send = (to: string) =>
      createTransport(sink.url).sendMail({ from: 'sender@mailroom.test', to, text: 'refused' })

    await expect(send('bounce@example.test')).rejects.toMatchObject({
      responseCode: 550,
      permanent: true,
    } satisfies Partial<NodemailerError>)
    await expect(send('later@example.test')).rejects.toMatchObject({
      responseCode: 451,
      permanent: false,
    } satisfies Partial<NodemailerError>)
    expect(sink.messages).toHaveLength(0)
  })

  it('offers STARTTLS only when asked to', async () => {
    const tlsSink = await startSmtpSink({ starttls: true })
    const transport = createTransport({
      host: '127.0.0.1',
      port: tlsSink.port,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
    })

    await transport.sendMail({ from: 'sender@mailroom.test', to: 'alice@example.test', text: 'over TLS' })

    expect(await tlsSink.waitForMessages(1)).toHaveLength(1)
    await tlsSink.close()
    await expect(
      createTransport({ host: '127.0.0.1', port: sink.port, requireTLS: true }).sendMail({
        from: 'sender@mailroom.test',
        to: 'alice@example.test',
        text: 'refused without TLS',
      }),
    ).rejects.toThrow()
  })

  it('waitForMessages rejects with a clear error when too few messages arrive', async () => {
    await expect(sink.waitForMessages(1, 20)).rejects.toThrow(
      'Timed out after 20 ms waiting for 1 SMTP messages, got 0',
    )
  })
})

describe('startDnsServer', () => {
  const dkimKey = `v=DKIM1; k=rsa; p=${'A'.repeat(582)}`
  let dns: TestDnsServer
  let resolver: Resolver

  beforeAll(async () => {
    dns = await startDnsServer({
      'mailroom.test': {
        A: ['192.0.2.10'],
        AAAA: ['2001:db8::10'],
        MX: [
          { exchange: 'mx1.mailroom.test', priority: 10 },
          { exchange: 'mx2.mailroom.test', priority: 20 },
        ],
        TXT: ['v=spf1 ip4:192.0.2.10 -all', ['chunk one ', 'chunk two']],
        NS: ['ns1.mailroom.test'],
      },
      'sel._domainkey.mailroom.test': { TXT: [dkimKey] },
      'utf8.mailroom.test': { TXT: ['é'.repeat(200)] },
      'www.mailroom.test': { CNAME: ['mailroom.test'] },
    })
    resolver = new Resolver({ timeout: 2000, tries: 1 })
    resolver.setServers([dns.address])
  })
  afterAll(() => dns.close())

  it('answers A, AAAA, MX, TXT and NS queries', async () => {
    expect(await resolver.resolve4('mailroom.test')).toEqual(['192.0.2.10'])
    expect(await resolver.resolve6('mailroom.test')).toEqual(['2001:db8::10'])
    // Node 24 adds `type: 'MX'` to each record; Node 22 does not.
    expect(await resolver.resolveMx('mailroom.test')).toMatchObject([
      { exchange: 'mx1.mailroom.test', priority: 10 },
      { exchange: 'mx2.mailroom.test', priority: 20 },
    ])
    expect(await resolver.resolveTxt('mailroom.test')).toEqual([
      ['v=spf1 ip4:192.0.2.10 -all'],
      ['chunk one ', 'chunk two'],
    ])
    expect(await resolver.resolveNs('mailroom.test')).toEqual(['ns1.mailroom.test'])
  })

  it('splits a TXT value longer than 255 bytes into character-strings that join back', async () => {
    const [record] = await resolver.resolveTxt('sel._domainkey.mailroom.test')

    expect(dkimKey).toHaveLength(600)
    expect(record?.map((piece) => piece.length)).toEqual([255, 255, 90])
    expect(record?.join('')).toBe(dkimKey)
  })

  it('splits a long TXT value between characters, never inside a multi-byte one', async () => {
    const [record] = await resolver.resolveTxt('utf8.mailroom.test')

    // node hands TXT bytes back as latin1, so re-encode them to see what went over the wire.
    const pieces = (record ?? []).map((piece) => Buffer.from(piece, 'latin1'))
    expect(pieces.map((piece) => piece.length)).toEqual([254, 146])
    expect(Buffer.concat(pieces).toString('utf8')).toBe('é'.repeat(200))
  })

  it('matches names case-insensitively and ignores a trailing dot', async () => {
    expect(await resolver.resolve4('MailRoom.TEST.')).toEqual(['192.0.2.10'])
  })

  it('follows a CNAME within its records', async () => {
    expect(await resolver.resolveCname('www.mailroom.test')).toEqual(['mailroom.test'])
    expect(await resolver.resolve4('www.mailroom.test')).toEqual(['192.0.2.10'])
  })

  it('answers NXDOMAIN for an unknown name, which node reports as ENOTFOUND', async () => {
    await expect(resolver.resolve4('missing.mailroom.test')).rejects.toMatchObject({ code: 'ENOTFOUND' })
  })

  it('answers NODATA for a known name without that type, which node reports as ENODATA', async () => {
    await expect(resolver.resolveMx('sel._domainkey.mailroom.test')).rejects.toMatchObject({ code: 'ENODATA' })
  })

  it('serves changed records on the next query, without caching', async () => {
    dns.set('changing.mailroom.test', 'A', ['192.0.2.1'])
    expect(await resolver.resolve4('changing.mailroom.test')).toEqual(['192.0.2.1'])

    dns.set('changing.mailroom.test', 'A', ['192.0.2.2'])
    expect(await resolver.resolve4('changing.mailroom.test')).toEqual(['192.0.2.2'])

    dns.set('changing.mailroom.test', 'TXT', ['kept'])
    dns.remove('changing.mailroom.test', 'A')
    await expect(resolver.resolve4('changing.mailroom.test')).rejects.toMatchObject({ code: 'ENODATA' })

    dns.remove('changing.mailroom.test')
    await expect(resolver.resolveTxt('changing.mailroom.test')).rejects.toMatchObject({ code: 'ENOTFOUND' })
  })

  it('answers over TCP on the same port', async () => {
    const query = TCPClient({ dns: '127.0.0.1', port: dns.port })

    const response = await query('mailroom.test', 'MX')

    expect(response.answers.map(({ exchange, priority }) => ({ exchange, priority }))).toEqual([
      { exchange: 'mx1.mailroom.test', priority: 10 },
      { exchange: 'mx2.mailroom.test', priority: 20 },
    ])
  })

  it('lets node fall back to TCP when the answer is too big for UDP', async () => {
    const records = Array.from({ length: 4 }, (_, index) => `${index}${'x'.repeat(600)}`)
    dns.set('big.mailroom.test', 'TXT', records)
    const before = dns.queries.length

    const answer = await resolver.resolveTxt('big.mailroom.test')

    expect(answer.map((pieces) => pieces.join(''))).toEqual(records)
    // One truncated UDP answer, then the same question again over TCP.
    expect(dns.queries.slice(before)).toEqual([
      { name: 'big.mailroom.test', type: 'TXT' },
      { name: 'big.mailroom.test', type: 'TXT' },
    ])
  })

  it('logs every query by lower-cased name and type', async () => {
    dns.queries.length = 0

    await resolver.resolveMx('MAILROOM.test')

    expect(dns.queries).toEqual([{ name: 'mailroom.test', type: 'MX' }])
  })

  it('clear forgets every record', async () => {
    const other = await startDnsServer({ 'gone.test': { A: ['192.0.2.3'] } })
    const otherResolver = new Resolver({ timeout: 2000, tries: 1 })
    otherResolver.setServers([other.address])

    other.clear()

    await expect(otherResolver.resolve4('gone.test')).rejects.toMatchObject({ code: 'ENOTFOUND' })
    await other.close()
  })
})

describe('startHttpReceiver', () => {
  let receiver: HttpReceiver

  beforeAll(async () => {
    receiver = await startHttpReceiver()
  })
  afterEach(() => receiver.reset())
  afterAll(() => receiver.close())

  it('records a JSON POST and answers 200 {"ok":true} by default', async () => {
    const response = await fetch(`${receiver.url}/hooks/mailroom?attempt=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mailroom-signature': 'sig' },
      body: JSON.stringify({ type: 'email.delivered', id: 'em_1' }),
    })

    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
    const [request] = await receiver.waitForRequests(1)
    expect(request).toMatchObject({
      method: 'POST',
      url: '/hooks/mailroom?attempt=1',
      body: '{"type":"email.delivered","id":"em_1"}',
      json: { type: 'email.delivered', id: 'em_1' },
    })
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.headers['x-mailroom-signature']).toBe('sig')
  })

  it('leaves json unset for a body that is not JSON', async () => {
    await fetch(receiver.url, { method: 'POST', body: 'plain words' })

    const [request] = await receiver.waitForRequests(1)
    expect(request?.body).toBe('plain words')
    expect(request).not.toHaveProperty('json')
  })

  it('answers with a scripted error status and body', async () => {
    receiver.respondWith(() => ({ status: 500, body: 'boom' }))

    const response = await fetch(receiver.url, { method: 'POST', body: '{}' })

    expect(response.status).toBe(500)
    expect(await response.text()).toBe('boom')
  })

  it('answers with a scripted redirect', async () => {
    receiver.respondWith(() => ({ status: 302, headers: { location: 'http://192.0.2.1/elsewhere' } }))

    const response = await fetch(receiver.url, { method: 'POST', body: '{}', redirect: 'manual' })

    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('http://192.0.2.1/elsewhere')
  })

  it('passes the recorded request to the handler', async () => {
    receiver.respondWith((req) => ({ status: req.url === '/fail' ? 503 : 204 }))

    const statuses = [(await fetch(`${receiver.url}/fail`)).status, (await fetch(`${receiver.url}/ok`)).status]

    expect(statuses).toEqual([503, 204])
  })

  it('holds a delayed answer until the client times out', async () => {
    receiver.respondWith(() => ({ status: 200, delayMs: 60_000 }))

    const sent = fetch(receiver.url, { method: 'POST', body: '{}', signal: AbortSignal.timeout(50) })

    await expect(sent).rejects.toMatchObject({ name: 'TimeoutError' })
    expect(await receiver.waitForRequests(1)).toHaveLength(1)
  })

  it('closes promptly while an answer is still delayed', async () => {
    const slow = await startHttpReceiver()
    slow.respondWith(() => ({ status: 200, delayMs: 60_000 }))
    const sent = fetch(slow.url, { method: 'POST', body: '{}' })
    await slow.waitForRequests(1)

    await slow.close()

    await expect(sent).rejects.toThrow()
  })

  it('waitForRequests rejects with a clear error when too few requests arrive', async () => {
    await expect(receiver.waitForRequests(1, 20)).rejects.toThrow(
      'Timed out after 20 ms waiting for 1 HTTP requests, got 0',
    )
  })
})
