import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually, findEmails } from '../helpers/emails.js'
import { itRejectsBadQueries } from '../helpers/errors.js'
import { type Account, callAs, createAccount } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

const domain = 'lists.example.com'
const from = `hello@${domain}`
/** Recipients the SMTP server refuses with 550 (no such user): the next send to one is a permanent bounce. */
const refused = new Set<string>()

let sink: SmtpSink
let env: ServerWithDns
let account: Account
let other: Account

beforeAll(async () => {
  sink = await startSmtpSink({
    failWith: (rcpt) =>
      refused.has(rcpt.toLowerCase()) ? { code: 550, message: '5.1.1 No such user here' } : undefined,
  })
  env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  account = await createAccount(env.server)
  other = await createAccount(env.server, 'Other project')
  await addVerifiedDomain(env.server, env.dns, account, domain)
})
afterAll(async () => {
  await env.close()
  await sink.close()
})
beforeEach(() => {
  sink.reset()
  refused.clear()
})

const as = (owner: Account) => callAs(env.server, owner)

async function send(to: string): Promise<string> {
  const response = await as(account)('POST', '/v1/send', { to, subject: 'Hello', body: '<p>hello</p>', from })
  expect(response.statusCode).toBe(200)
  return response.json().data.emails[0].email
}

async function settled(emailId: string, status: string) {
  await vi.waitFor(async () => expect((await findEmails(env.server, [emailId]))[0]?.status).toBe(status), eventually)
  return (await findEmails(env.server, [emailId]))[0]
}

/** Sends to `to` while the server refuses it, so the address bounces and is suppressed; the email's id. */
async function bounce(to: string): Promise<string> {
  refused.add(to.toLowerCase())
  const emailId = await send(to)
  await settled(emailId, 'BOUNCED')
  refused.delete(to.toLowerCase())
  return emailId
}

describe('the suppression list', () => {
  it('lists the addresses that bounced, newest first, with the email that caused it; no other project sees them', async () => {
    const first = await bounce('gone-1@example.net')
    const second = await bounce('Gone-2@Example.net')

    const response = await as(account)('GET', '/suppressions?search=gone-')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      data: [
        { email: 'gone-2@example.net', reason: 'bounce', emailId: second, createdAt: expect.any(String) },
        { email: 'gone-1@example.net', reason: 'bounce', emailId: first, createdAt: expect.any(String) },
      ],
      cursor: '',
      hasMore: false,
      total: 2,
    })
    expect((await as(account)('GET', '/suppressions?search=GONE-2')).json().total).toBe(1)
    expect((await as(account)('GET', '/suppressions?search=gone-&reason=complaint')).json().total).toBe(0)
    // LIKE's wildcards are matched as themselves.
    expect((await as(account)('GET', '/suppressions?search=gone_')).json().total).toBe(0)

    expect((await as(other)('GET', '/suppressions')).json()).toEqual({ data: [], cursor: '', hasMore: false, total: 0 })
    expect((await as(other)('DELETE', '/suppressions/gone-1@example.net')).statusCode).toBe(404)
    expect((await as(account)('GET', '/suppressions?search=gone-1')).json().total).toBe(1)
  })

  it('lifting an address lets mail reach it again; lifting it twice is a 404', async () => {
    await bounce('fixed@example.net')
    const refusedEmail = await send('fixed@example.net')
    expect(await settled(refusedEmail, 'FAILED')).toMatchObject({ lastError: expect.stringContaining('suppressed') })

    const lifted = await as(account)('DELETE', '/suppressions/FIXED@example.net')
    expect(lifted.statusCode).toBe(204)
    expect((await as(account)('GET', '/suppressions?search=fixed')).json().total).toBe(0)

    await settled(await send('fixed@example.net'), 'SENT')
    expect(sink.messages.map((message) => message.envelope.to)).toEqual([['fixed@example.net']])

    const again = await as(account)('DELETE', '/suppressions/fixed@example.net')
    expect(again.statusCode).toBe(404)
    expect(again.json().error.code).toBe('NOT_FOUND')
  })

  it('pages with a cursor, with no address twice and none left out', async () => {
    const addresses = ['page-a@example.net', 'page-b@example.net', 'page-c@example.net']
    for (const address of addresses) await bounce(address)

    const first = (await as(account)('GET', '/suppressions?search=page-&limit=2')).json()
    expect(first).toMatchObject({ hasMore: true, total: 3 })
    const second = (await as(account)('GET', `/suppressions?search=page-&limit=2&cursor=${first.cursor}`)).json()
    expect(second).toMatchObject({ hasMore: false, cursor: '', total: 0 })
    const listed = [...first.data, ...second.data].map((suppression: { email: string }) => suppression.email)
    expect(listed).toEqual([...addresses].reverse())
  })

  it('a cursor that is not ours is a 400', async () => {
    const response = await as(account)('GET', '/suppressions?cursor=bm90LWEtY3Vyc29y')
    expect(response.statusCode).toBe(400)
    expect(response.json().error).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid cursor' })
  })

  itRejectsBadQueries(
    () => env.server,
    [
      ['/suppressions?limit=0', 'limit', 'too_small'],
      ['/suppressions?reason=spam', 'reason', 'invalid_enum_value'],
    ],
  )
})
