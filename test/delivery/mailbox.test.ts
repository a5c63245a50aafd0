import { simpleParser } from 'mailparser'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { MailboxPage } from '../../src/modules/captured-mail/schemas.js'
import { enqueue, eventually, findEmails, testEmail } from '../helpers/emails.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

describe('the capture mailbox', () => {
  let server: TestServer
  let owner: Account
  let other: Account
  let emailIds: string[]

  beforeAll(async () => {
    server = await startTestServer({ config: { mailTransport: 'capture' } })
    owner = await createAccount(server)
    other = await createAccount(server)
    emailIds = await enqueue(
      server,
      owner.project.id,
      ['first', 'second', 'third'].map((subject) => testEmail({ subject, to: { email: `${subject}@example.org` } })),
    )
    await vi.waitFor(async () => {
      const rows = await findEmails(server, emailIds)
      expect(rows.map((row) => row.status)).toEqual(['SENT', 'SENT', 'SENT'])
    }, eventually)
  })
  afterAll(() => server.close())

  const list = (account: Account, query = '') =>
    server.app.inject({ method: 'GET', url: `/mailbox${query}`, headers: bearer(account.secretKey) })

  describe('accepts', () => {
    it('lists the captured messages of the project, newest first, page by page', async () => {
      const first = await list(owner, '?limit=2')
      expect(first.statusCode).toBe(200)
      const page = first.json<MailboxPage>()
      expect(page).toMatchObject({ hasMore: true, total: 3 })
      expect(page.data).toHaveLength(2)
      expect(page.data[0]).toEqual({
        id: expect.any(String),
        source: 'PROJECT',
        kind: null,
        emailId: expect.any(String),
        from: 'hello@mail.example.test',
        to: [expect.stringMatching(/@example\.org$/)],
        subject: expect.any(String),
        createdAt: expect.any(String),
      })

      const second = (await list(owner, `?limit=2&cursor=${page.cursor}`)).json<MailboxPage>()
      expect(second).toMatchObject({ hasMore: false, total: 0, cursor: '' })
      const all = [...page.data, ...second.data]
      expect(new Set(all.map((message) => message.emailId))).toEqual(new Set(emailIds))
    })

    it('serves a captured message as raw message/rfc822, the same bytes under .eml and /raw', async () => {
      const [message] = (await list(owner)).json<MailboxPage>().data
      const eml = await server.app.inject({
        method: 'GET',
        url: `/mailbox/${message?.id}.eml`,
        headers: bearer(owner.secretKey),
      })
      const raw = await server.app.inject({
        method: 'GET',
        url: `/mailbox/${message?.id}/raw`,
        headers: { cookie: owner.cookie, 'x-project-id': owner.project.id },
      })

      expect(eml.statusCode).toBe(200)
      expect(eml.headers['content-type']).toBe('message/rfc822')
      expect(raw.rawPayload.equals(eml.rawPayload)).toBe(true)
      const parsed = await simpleParser(eml.rawPayload)
      expect(parsed.subject).toBe(message?.subject)
      expect(parsed.html).toContain('<b>there</b>')
      expect(parsed.text).toBe('Hello there')
    })
  })

  describe('scoping', () => {
    it("another project's key sees an empty mailbox", async () => {
      const response = await list(other)
      expect(response.json()).toEqual({ data: [], cursor: '', hasMore: false, total: 0 })
    })

    it("another project's key gets 404 for a captured message", async () => {
      const [message] = (await list(owner)).json<MailboxPage>().data
      for (const url of [`/mailbox/${message?.id}.eml`, `/mailbox/${message?.id}/raw`]) {
        const response = await server.app.inject({ method: 'GET', url, headers: bearer(other.secretKey) })
        expect(response.statusCode).toBe(404)
        expect(response.json().error.code).toBe('NOT_FOUND')
      }
    })

    it('a public key cannot read the mailbox', async () => {
      const response = await server.app.inject({ method: 'GET', url: '/mailbox', headers: bearer(owner.publicKey) })
      expect(response.statusCode).toBe(401)
      expect(response.json().error.code).toBe('INVALID_API_KEY')
    })
  })

  it('pages through messages captured within one millisecond without repeating or skipping any', async () => {
    const account = await createAccount(server)
    // One batch of captured mail shares a millisecond; only the microseconds tell the rows apart.
    await server.ctx.pool.query(
      `INSERT INTO captured_messages (project_id, from_email, to_emails, subject, raw, created_at)
       SELECT $1, 'a@example.test', ARRAY['b@example.org'], 'm' || n, '\\x00'::bytea,
         timestamptz '2026-11-20 10:00:00.000Z' + make_interval(secs => n / 1000000.0)
       FROM generate_series(1, 5) AS n`,
      [account.project.id],
    )
    const subjects: string[] = []
    let cursor = ''
    do {
      const page = (await list(account, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json<MailboxPage>()
      subjects.push(...page.data.map((message) => message.subject))
      cursor = page.cursor
    } while (cursor)
    expect(subjects).toEqual(['m5', 'm4', 'm3', 'm2', 'm1'])
  })

  describe('rejects', () => {
    it('a cursor that is not one of ours with 400', async () => {
      const response = await list(owner, '?cursor=bm90LWEtY3Vyc29y')
      expect(response.statusCode).toBe(400)
      expect(response.json().error.message).toBe('Invalid cursor')
    })

    it('a message id that is not a uuid with 422', async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: '/mailbox/not-a-uuid/raw',
        headers: bearer(owner.secretKey),
      })
      expect(response.statusCode).toBe(422)
      expect(response.json().error.code).toBe('VALIDATION_ERROR')
    })
  })
})
