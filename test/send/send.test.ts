import { Plunk } from '@plunk/node/dist/lib/Plunk.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { verifyDkim } from '../helpers/dkim.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

let sink: SmtpSink
let env: ServerWithDns
let account: Account

const domain = 'send.example.com'
const from = `hello@${domain}`

beforeAll(async () => {
  sink = await startSmtpSink()
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  account = await createAccount(env.server)
  await addVerifiedDomain(env.server, env.dns, account, domain)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})
beforeEach(() => sink.reset())

function send(payload: unknown, headers: Record<string, string> = {}, key = account.secretKey) {
  return env.server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(key), ...headers },
    payload: payload as object,
  })
}

async function contactByEmail(email: string) {
  const { rows } = await env.server.ctx.pool.query(
    'SELECT id, subscribed, data FROM contacts WHERE email = $1 AND project_id = $2',
    [email, account.project.id],
  )
  return rows[0] as { id: string; subscribed: boolean; data: Record<string, unknown> } | undefined
}

describe('POST /v1/send accepts', () => {
  it('a plain send: 200 with the email id per recipient, and the message reaches the SMTP server', async () => {
    const response = await send({ to: 'ada@example.net', subject: 'Welcome', body: '<p>Hello <b>Ada</b></p>', from })
    expect(response.statusCode).toBe(200)
    const { data } = response.json()
    expect(data.emails).toEqual([
      { contact: { id: expect.any(String), email: 'ada@example.net' }, email: expect.any(String) },
    ])
    expect(Date.parse(data.timestamp)).not.toBeNaN()

    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.to).toEqual(['ada@example.net'])
    expect(message?.parsed.subject).toBe('Welcome')
    expect(message?.parsed.html).toContain('<p>Hello <b>Ada</b></p>')
    expect(message?.parsed.text).toContain('Hello Ada')
    expect(message?.parsed.from?.value[0]?.address).toBe(from)
  })

  it("signs with the sender domain's own DKIM key, which verifies against the published DNS record", async () => {
    expect((await send({ to: 'dkim@example.net', subject: 'Signed', body: '<p>signed</p>', from })).statusCode).toBe(
      200,
    )
    const [message] = await sink.waitForMessages(1)
    const results = await verifyDkim(message?.raw ?? Buffer.alloc(0), env.dns)
    expect(results).toEqual([
      expect.objectContaining({ signingDomain: domain, status: expect.objectContaining({ result: 'pass' }) }),
    ])
  })

  it('every recipient form, each with its own contact and email, processed in order', async () => {
    const response = await send({
      to: ['one@example.net', { name: 'Twó Person', email: 'TWO@example.net' }],
      subject: 'Hi {{email}}',
      body: '<p>For {{ email }}</p>',
      from: { name: 'Señor Sender', email: from },
    })
    expect(response.statusCode).toBe(200)
    const emails = response.json().data.emails
    expect(emails.map((entry: { contact: { email: string } }) => entry.contact.email)).toEqual([
      'one@example.net',
      'two@example.net',
    ])
    const messages = await sink.waitForMessages(2)
    const byRecipient = new Map(messages.map((message) => [message.envelope.to[0], message.parsed]))
    expect(byRecipient.get('one@example.net')?.subject).toBe('Hi one@example.net')
    expect(byRecipient.get('two@example.net')?.to).toMatchObject({
      value: [{ name: 'Twó Person', address: 'two@example.net' }],
    })
    expect(byRecipient.get('two@example.net')?.from?.value[0]).toEqual({ name: 'Señor Sender', address: from })
  })

  it('one address twice in a request: one contact, two emails', async () => {
    const response = await send({
      to: ['dup@example.net', 'DUP@example.net'],
      subject: 'Twice',
      body: '<p>x</p>',
      from,
      data: { plan: 'pro' },
    })
    expect(response.statusCode).toBe(200)
    const emails: { contact: { id: string }; email: string }[] = response.json().data.emails
    expect(new Set(emails.map((entry) => entry.contact.id)).size).toBe(1)
    expect(new Set(emails.map((entry) => entry.email)).size).toBe(2)
    expect(await sink.waitForMessages(2)).toHaveLength(2)
  })

  it('the deprecated `name` names the sender of a plain `from`, `reply` sets Reply-To, custom headers arrive', async () => {
    const response = await send({
      to: 'headers@example.net',
      subject: 'Ünïcödé subject ✓',
      body: '<p>x</p>',
      from,
      name: 'Legacy Name',
      reply: 'support@example.org',
      headers: { 'X-Campaign-Ref': 'abc-123' },
    })
    expect(response.statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)
    expect(message?.parsed.from?.value[0]).toEqual({ name: 'Legacy Name', address: from })
    expect(message?.parsed.replyTo?.value[0]?.address).toBe('support@example.org')
    expect(message?.parsed.headers.get('x-campaign-ref')).toBe('abc-123')
    expect(message?.parsed.subject).toBe('Ünïcödé subject ✓')
  })

  it('attachments and inline parts arrive byte-exact', async () => {
    const binary = Buffer.from([0, 1, 2, 253, 254, 255, 10, 13])
    const pixel = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    const response = await send({
      to: 'files@example.net',
      subject: 'Files',
      body: '<p><img src="cid:logo@mailroom"></p>',
      from,
      attachments: [
        { filename: 'data.bin', content: binary.toString('base64'), contentType: 'application/octet-stream' },
        {
          filename: 'logo.png',
          content: pixel.toString('base64'),
          contentType: 'image/png',
          contentId: 'logo@mailroom',
          disposition: 'inline',
        },
      ],
    })
    expect(response.statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)
    const files = message?.parsed.attachments ?? []
    expect(files.find((file) => file.filename === 'data.bin')?.content.equals(binary)).toBe(true)
    const inline = files.find((file) => file.filename === 'logo.png')
    expect(inline?.content.equals(pixel)).toBe(true)
    expect(inline?.contentId).toBe('<logo@mailroom>')
  })

  it('a template supplies subject, body and sender; request fields override; data fills the variables', async () => {
    const template = await env.server.app.inject({
      method: 'POST',
      url: '/templates',
      headers: bearer(account.secretKey),
      payload: {
        name: 'Receipt',
        subject: 'Receipt for {{ plan }}',
        body: '<p>Hi {{ firstName ?? "there" }}, plan {{ data.plan }}, code {{ code }}</p>',
        from,
        fromName: 'Billing',
        type: 'TRANSACTIONAL',
      },
    })
    expect(template.statusCode).toBe(201)
    const response = await send({
      to: 'tpl@example.net',
      template: template.json().id,
      data: { plan: 'Pro <b>', code: { value: 'ONE-TIME', persistent: false } },
    })
    expect(response.statusCode).toBe(200)
    const [message] = await sink.waitForMessages(1)
    expect(message?.parsed.subject).toBe('Receipt for Pro <b>')
    expect(message?.parsed.html).toContain('Hi there, plan Pro &lt;b&gt;, code ONE-TIME')
    expect(message?.parsed.from?.value[0]).toEqual({ name: 'Billing', address: from })
    const contact = await contactByEmail('tpl@example.net')
    expect(contact?.data).toEqual({ plan: 'Pro <b>' })

    const overridden = await send({ to: 'tpl@example.net', template: template.json().id, subject: 'Override' })
    expect(overridden.statusCode).toBe(200)
    const [second] = await sink.waitForMessages(2).then((all) => all.slice(1))
    expect(second?.parsed.subject).toBe('Override')
  })

  it('marketing mail carries one-click List-Unsubscribe headers covered by DKIM; transactional mail does not', async () => {
    const create = (type: string) =>
      env.server.app.inject({
        method: 'POST',
        url: '/templates',
        headers: bearer(account.secretKey),
        payload: { name: type, subject: `${type} news`, body: '<p>news</p>', from, type },
      })
    const marketing = (await create('MARKETING')).json().id
    const transactional = (await create('TRANSACTIONAL')).json().id
    expect((await send({ to: 'list@example.net', template: marketing })).statusCode).toBe(200)
    expect((await send({ to: 'list@example.net', template: transactional })).statusCode).toBe(200)
    const messages = await sink.waitForMessages(2)
    const bySubject = new Map(messages.map((message) => [message.parsed.subject, message]))
    const news = bySubject.get('MARKETING news')
    // Header lines unfolded, as a receiver reads them.
    const head = (news?.raw.toString() ?? '').split('\r\n\r\n')[0]?.replace(/\r\n[ \t]+/g, ' ') ?? ''
    expect(head).toMatch(/^List-Unsubscribe: <http:\/\/localhost:3000\/unsubscribe\/[\w-]+\.[\w-]+>$/m)
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m)
    const signature = /^DKIM-Signature:[\s\S]*?\bh=([^;]+);/m
      .exec(news?.raw.toString() ?? '')?.[1]
      ?.replace(/\s/g, '')
      .toLowerCase()
    expect(signature?.split(':')).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post']))
    expect(await verifyDkim(news?.raw ?? Buffer.alloc(0), env.dns)).toEqual([
      expect.objectContaining({ status: expect.objectContaining({ result: 'pass' }) }),
    ])
    expect(bySubject.get('TRANSACTIONAL news')?.raw.toString()).not.toMatch(/^List-Unsubscribe/im)
  })

  it('a new contact is unsubscribed unless told; an existing one keeps its status; unknown fields are ignored', async () => {
    expect((await send({ to: 'fresh@example.net', subject: 's', body: 'b', from, type: 'html' })).statusCode).toBe(200)
    expect((await contactByEmail('fresh@example.net'))?.subscribed).toBe(false)
    expect((await send({ to: 'fresh@example.net', subject: 's', body: 'b', from, subscribed: true })).statusCode).toBe(
      200,
    )
    const contact = await contactByEmail('fresh@example.net')
    expect(contact?.subscribed).toBe(true)
    const events = await env.server.ctx.pool.query(
      "SELECT name FROM events WHERE contact_id = $1 AND name LIKE 'contact.%'",
      [contact?.id],
    )
    expect(events.rows).toEqual([{ name: 'contact.subscribed' }])
    expect((await send({ to: 'fresh@example.net', subject: 's', body: 'b', from })).statusCode).toBe(200)
    expect((await contactByEmail('fresh@example.net'))?.subscribed).toBe(true)
    await sink.waitForMessages(3)
  })

  it('an Idempotency-Key makes a retried send go out once', async () => {
    const payload = { to: 'once@example.net', subject: 'Once', body: 'b', from }
    expect((await send(payload, { 'idempotency-key': 'send-once-1' })).statusCode).toBe(200)
    const retry = await send(payload, { 'idempotency-key': 'send-once-1' })
    expect(retry.statusCode).toBe(409)
    expect(retry.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED')
    await sink.waitForMessages(1)
    const rows = await env.server.ctx.pool.query(
      "SELECT count(*)::int AS n FROM emails WHERE to_email = 'once@example.net'",
    )
    expect(rows.rows[0].n).toBe(1)
  })
})

describe('existing clients', () => {
  it('the official @plunk/node client sends through the running server', async () => {
    const plunk = new Plunk(account.secretKey, { baseUrl: `${env.server.url}/v1/` })
    const result = await plunk.emails.send({ to: 'sdk@example.net', subject: 'From the SDK', body: '<p>sdk</p>', from })
    expect(result).toMatchObject({ success: true })
    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.to).toEqual(['sdk@example.net'])
    expect(message?.parsed.subject).toBe('From the SDK')
  })
})

describe('POST /v1/send rejects', () => {
  async function expectNothingStored(email: string) {
    expect(await contactByEmail(email)).toBeUndefined()
  }

  it('missing subject and body without a template, with field paths', async () => {
    const response = await send({ to: 'nobody@example.net', from })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors.map((error: { field: string }) => error.field)).toEqual(['subject', 'body'])
    await expectNothingStored('nobody@example.net')
  })

  it('header injection in subject, names, header names and values, and filenames', async () => {
    const attempts = [
      { subject: 'Hi\r\nBcc: victim@example.org', field: 'subject' },
      { from: { name: 'Evil\r\nBcc: x@example.org', email: from }, field: 'from.name' },
      { headers: { 'X-Ok': 'a\r\nBcc: x@example.org' }, field: 'headers.X-Ok' },
      { headers: { 'Bad\r\nName': 'v' }, field: 'headers.Bad\r\nName' },
      { headers: { Bcc: 'x@example.org' }, field: 'headers.Bcc' },
      {
        attachments: [{ filename: 'a"\r\n.txt', content: 'aGk=', contentType: 'text/plain' }],
        field: 'attachments.0.filename',
      },
    ]
    for (const { field, ...attempt } of attempts) {
      const response = await send({ to: 'inject@example.net', subject: 's', body: 'b', from, ...attempt })
      expect(response.statusCode, field).toBe(422)
      expect(
        response.json().error.errors.map((error: { field: string }) => error.field),
        field,
      ).toContain(field)
    }
    await expectNothingStored('inject@example.net')
  })

  it('bad attachments: 11 items, invalid base64, inline without contentId, over the size limit', async () => {
    const one = { filename: 'a.txt', content: 'aGk=', contentType: 'text/plain' }
    const cases: [unknown, string][] = [
      [Array.from({ length: 11 }, () => one), 'attachments'],
      [[{ ...one, content: 'not base64!' }], 'attachments.0.content'],
      [[{ ...one, disposition: 'inline' }], 'attachments.0.contentId'],
      [[{ ...one, content: Buffer.alloc(10 * 1024 * 1024 + 1).toString('base64') }], 'attachments'],
    ]
    for (const [attachments, field] of cases) {
      const response = await send({ to: 'attach@example.net', subject: 's', body: 'b', from, attachments })
      expect(response.statusCode, field).toBe(422)
      expect(response.json().error.errors[0].field, field).toBe(field)
    }
    await expectNothingStored('attach@example.net')
  })

  it('a sender on an unverified or foreign domain is 403', async () => {
    await addDomain(env.server, account, 'pending.example.com')
    for (const sender of ['hello@pending.example.com', 'hello@not-mine.example.com']) {
      const response = await send({ to: 'forbidden@example.net', subject: 's', body: 'b', from: sender })
      expect(response.statusCode, sender).toBe(403)
      expect(response.json().error.code).toBe('FORBIDDEN')
    }
    await expectNothingStored('forbidden@example.net')
  })

  it('a template of another project is 404, a public key is 401, a disabled project is 403', async () => {
    const other = await createAccount(env.server)
    const foreign = await env.server.app.inject({
      method: 'POST',
      url: '/templates',
      headers: bearer(other.secretKey),
      payload: { name: 'Theirs', subject: 's', body: 'b', from: 'x@theirs.example.com' },
    })
    // The other project has no domain, so its template cannot even be created: use a random id instead.
    const templateId = foreign.statusCode === 201 ? foreign.json().id : '5f0c2a9e-8a51-4f0e-9d4e-0a1b2c3d4e5f'
    const response = await send({ to: 'x@example.net', template: templateId })
    expect(response.statusCode).toBe(404)

    const publicKey = await send({ to: 'x@example.net', subject: 's', body: 'b', from }, {}, account.publicKey)
    expect(publicKey.statusCode).toBe(401)
    expect(publicKey.json().error.code).toBe('INVALID_API_KEY')

    const disabled = await createAccount(env.server)
    await env.server.ctx.pool.query('UPDATE projects SET disabled = true WHERE id = $1', [disabled.project.id])
    const refused = await send({ to: 'x@example.net', subject: 's', body: 'b', from }, {}, disabled.secretKey)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error.code).toBe('PROJECT_DISABLED')
  })
})
