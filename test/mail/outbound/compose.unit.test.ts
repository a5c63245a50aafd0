import { randomBytes } from 'node:crypto'
import { simpleParser } from 'mailparser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildMessage, type DkimKey, type MessageSpec } from '../../../src/mail/outbound/compose.js'
import { ComposeError, type ComposePool, startComposePool } from '../../../src/mail/outbound/dkim-pool.js'
import { publishDkimKey, verifyDkim } from '../../helpers/dkim.js'
import { startDnsServer, type TestDnsServer } from '../../helpers/dns-server.js'

const message: MessageSpec = {
  messageId: '0b7c1a52-3f0e-4d0b-9a59-0e5b8d2c7f10@mail.example.test',
  from: { email: 'news@mail.example.test', name: 'Zoë Müller — Ünïcode' },
  to: { email: 'reader@example.org', name: '读者 Reader' },
  replyTo: 'help@mail.example.test',
  subject: 'Grüße aus Köln ✉ 测试',
  html: '<h1>Hello</h1><p>Read <a href="https://example.org/x">this</a>.</p><img src="cid:logo@mr">',
  headers: { 'X-Campaign': 'spring', 'List-Unsubscribe': '<https://example.org/u>' },
  attachments: [
    {
      filename: 'notes.txt',
      contentType: 'text/plain',
      content: Buffer.from('a\nb\r\nc\n'),
      disposition: 'attachment',
    },
    {
      filename: 'logo.png',
      contentType: 'image/png',
      content: randomBytes(2048),
      contentId: 'logo@mr',
      disposition: 'inline',
    },
  ],
}

describe('composing a message', () => {
  it('carries both alternatives, encoded names and subject, custom headers and exact attachment bytes', async () => {
    const parsed = await simpleParser(buildMessage({ message }))

    expect(parsed.subject).toBe(message.subject)
    expect(parsed.from?.value).toEqual([{ address: message.from.email, name: message.from.name }])
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value : undefined).toEqual([
      { address: message.to.email, name: message.to.name },
    ])
    expect(parsed.replyTo?.value[0]?.address).toBe('help@mail.example.test')
    expect(parsed.messageId).toBe(`<${message.messageId}>`)
    expect(parsed.html).toContain('<h1>Hello</h1>')
    expect(parsed.text).toContain('HELLO')
    expect(parsed.text).toContain('this [https://example.org/x]')
    expect(parsed.headers.get('x-campaign')).toBe('spring')
    const notes = parsed.attachments.find((part) => part.filename === 'notes.txt')
    const logo = parsed.attachments.find((part) => part.filename === 'logo.png')
    expect(notes?.content.equals(Buffer.from('a\nb\r\nc\n'))).toBe(true)
    expect(notes?.contentDisposition).toBe('attachment')
    expect(logo?.content.equals(Buffer.from(message.attachments?.[1]?.content ?? []))).toBe(true)
    expect(logo?.contentId).toBe('<logo@mr>')
    expect(logo?.related).toBe(true)
  })

  it('never lets a custom header replace the sender, recipient or Message-ID', async () => {
    const raw = buildMessage({
      message: { ...message, headers: { From: 'evil@attacker.test', 'Message-ID': '<x@attacker.test>' } },
    })
    const parsed = await simpleParser(raw)
    expect(parsed.from?.value[0]?.address).toBe(message.from.email)
    expect(parsed.messageId).toBe(`<${message.messageId}>`)
    expect(raw.toString('latin1')).not.toContain('attacker.test')
  })
})

describe('DKIM signing', () => {
  let dns: TestDnsServer
  let key: DkimKey
  let pool: ComposePool

  beforeAll(async () => {
    dns = await startDnsServer()
    key = publishDkimKey(dns, 'mail.example.test')
    pool = startComposePool({ size: 1 })
  })
  afterAll(async () => {
    await pool.close()
    await dns.close()
  })

  it('signs on a worker thread with a signature that verifies against the published key', async () => {
    const { raw } = await pool.compose({ message, dkim: key })

    const [result] = await verifyDkim(raw, dns)
    expect(result?.status.result).toBe('pass')
    expect(result?.signingDomain).toBe('mail.example.test')
    expect(result?.signingHeaders?.keys.toLowerCase().split(': ')).toEqual(
      expect.arrayContaining([
        'from',
        'to',
        'subject',
        'date',
        'message-id',
        'reply-to',
        'mime-version',
        'content-type',
      ]),
    )
    expect(result?.signingHeaders?.keys.toLowerCase()).toContain('list-unsubscribe')
  })

  it('fails verification once a signed header is altered', async () => {
    const { raw } = await pool.compose({ message, dkim: key })
    const tampered = Buffer.from(raw.toString('latin1').replace('Subject: ', 'Subject: RE: '), 'latin1')

    const [result] = await verifyDkim(tampered, dns)
    expect(result?.status.result).toBe('fail')
  })
})

describe('rendering campaign content on a compose thread', () => {
  let pool: ComposePool
  const links = {
    publicUrl: 'https://mailroom.example.test',
    secret: 'a-secret-of-at-least-thirty-two-characters',
    subject: { projectId: '5f0c9d1e-8a4b-4c6d-9e2f-1a3b5c7d9e0f', contactId: '6a1d0e2f-9b5c-4d7e-8f3a-2b4c6d8e0f1a' },
  }

  beforeAll(() => {
    pool = startComposePool({ size: 1 })
  })
  afterAll(() => pool.close())

  it('renders the subject and body with the contact’s data and adds its List-Unsubscribe headers', async () => {
    const { raw, subject } = await pool.compose({
      message: { ...message, attachments: [], headers: {}, subject: 'stored', html: '<p>stored</p>' },
      render: {
        subject: 'Hi {{ data.name }}',
        body: '<p>Hello {{ data.name }}</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
        contact: { id: links.subject.contactId, email: 'reader@example.org', data: { name: 'Ada <b>' } },
        links,
        listUnsubscribe: true,
      },
    })
    expect(subject).toBe('Hi Ada <b>')
    const parsed = await simpleParser(raw)
    expect(parsed.subject).toBe('Hi Ada <b>')
    expect(parsed.html).toContain('<p>Hello Ada &lt;b&gt;</p>')
    expect(parsed.html).toContain('href="https://mailroom.example.test/unsubscribe/')
    // Unfolded: a long header value continues on the next line.
    const head = raw
      .toString('latin1')
      .split('\r\n\r\n')[0]
      ?.replace(/\r\n[ \t]+/g, ' ')
    expect(head).toMatch(/^List-Unsubscribe: <https:\/\/mailroom\.example\.test\/unsubscribe\//m)
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m)
  })

  it('fails the email for good when its template cannot be rendered for the contact', async () => {
    const composing = pool.compose({
      message: { ...message, attachments: [] },
      render: {
        subject: 'Hi',
        body: '{% for i in (1..100000000) %}x{% endfor %}',
        contact: { id: links.subject.contactId, email: 'reader@example.org', data: {} },
        links,
        listUnsubscribe: true,
      },
    })
    await expect(composing).rejects.toThrow(ComposeError)
    await expect(composing).rejects.toThrow(/Template could not be rendered: memory alloc limit exceeded/)
  })
})

describe('composing on the calling thread (COMPOSE_THREADS=0)', () => {
  let dns: TestDnsServer
  let key: DkimKey
  const pool = startComposePool({ size: 0 })

  beforeAll(async () => {
    dns = await startDnsServer()
    key = publishDkimKey(dns, 'mail.example.test')
  })
  afterAll(async () => {
    await pool.close()
    await dns.close()
  })

  it('signs with a signature that verifies against the published key, as a thread does', async () => {
    const { raw } = await pool.compose({ message, dkim: key })
    const [result] = await verifyDkim(raw, dns)
    expect(result?.status.result).toBe('pass')
    expect(result?.signingDomain).toBe('mail.example.test')
  })

  it('fails a message that cannot be built for good, as a thread does', async () => {
    const composing = pool.compose({
      message: { ...message, attachments: [] },
      render: {
        subject: 'Hi',
        body: '{% for i in (1..100000000) %}x{% endfor %}',
        contact: { id: '6a1d0e2f-9b5c-4d7e-8f3a-2b4c6d8e0f1a', email: 'reader@example.org', data: {} },
        links: {
          publicUrl: 'https://mailroom.example.test',
          secret: 'a-secret-of-at-least-thirty-two-characters',
          subject: {
            projectId: '5f0c9d1e-8a4b-4c6d-9e2f-1a3b5c7d9e0f',
            contactId: '6a1d0e2f-9b5c-4d7e-8f3a-2b4c6d8e0f1a',
          },
        },
        listUnsubscribe: true,
      },
    })
    await expect(composing).rejects.toThrow(ComposeError)
    await expect(pool.close().then(() => pool.compose({ message }))).rejects.toThrow('compose pool is closed')
  })
})
