import { simpleParser } from 'mailparser'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { CapturedMessageView, MailboxPage } from '../../src/modules/captured-mail/schemas.js'
import { eventually } from '../helpers/emails.js'
import { badPathBody } from '../helpers/errors.js'
import { type Account, bearer, createAccount, sessionCookie, uniqueEmail } from '../helpers/factories.js'
import { addMember } from '../helpers/members.js'
import { notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { tokenOf } from '../helpers/system-mail.js'

/*
 * With MAIL_TRANSPORT=capture, Mailroom's own emails (verification, password reset, invitations) go out through
 * the system project, whose mailbox nobody sees. They show in the dashboard's mailboxes instead: an invitation in
 * the inviting project's, for those who may invite; a verification or reset email in its user's own.
 */

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ config: { mailTransport: 'capture' } })
})
afterAll(() => server.close())

type Headers = Record<string, string>
const asMember = (account: { cookie: string }, projectId: string): Headers => ({
  cookie: account.cookie,
  'x-project-id': projectId,
})
const get = (url: string, headers: Headers) => server.app.inject({ method: 'GET', url, headers })

async function mailbox(url: string, headers: Headers): Promise<CapturedMessageView[]> {
  const response = await get(url, headers)
  expect(response.statusCode).toBe(200)
  return response.json<MailboxPage>().data
}

/** Waits for a captured message with this subject in a mailbox; returns its list entry. */
async function waitForMessage(url: string, headers: Headers, subject: string): Promise<CapturedMessageView> {
  let found: CapturedMessageView | undefined
  await vi.waitFor(async () => {
    found = (await mailbox(url, headers)).find((message) => message.subject === subject)
    expect(found).toBeDefined()
  }, eventually)
  if (!found) throw new Error('unreachable')
  return found
}

/** The link of an account email as the raw message holds it. */
async function linkIn(url: string, headers: Headers): Promise<string> {
  const response = await get(url, headers)
  expect(response.statusCode).toBe(200)
  expect(response.headers['content-type']).toBe('message/rfc822')
  const html = String((await simpleParser(response.rawPayload)).html)
  return /<a href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? ''
}

async function signUp(email = uniqueEmail()) {
  const signup = await server.app.inject({
    method: 'POST',
    url: '/auth/signup',
    payload: { email, password: 'a long unusual password' },
  })
  expect(signup.statusCode).toBe(201)
  return { email, cookie: sessionCookie(signup.headers['set-cookie']) }
}

describe("an invitation in the inviting project's mailbox", () => {
  it('shows to its owners, admins and secret key as an account email, with a link that joins', async () => {
    const owner = await createAccount(server, 'Mailbox team')
    const admin = await addMember(server, owner, 'ADMIN')
    const email = uniqueEmail('invitee')
    const invited = await server.app.inject({
      method: 'POST',
      url: `/projects/${owner.project.id}/members`,
      headers: { cookie: owner.cookie },
      payload: { email, role: 'MEMBER' },
    })
    expect(invited.statusCode).toBe(200)

    const subject = 'You are invited to Mailbox team on Mailroom'
    const message = await waitForMessage('/mailbox', asMember(owner, owner.project.id), subject)
    expect(message).toEqual({
      id: expect.any(String),
      source: 'ACCOUNT',
      kind: 'INVITATION',
      emailId: expect.any(String),
      from: 'accounts@mailroom.test',
      to: [email],
      subject,
      createdAt: expect.any(String),
    })
    for (const headers of [asMember(admin, owner.project.id), bearer(owner.secretKey)]) {
      expect(await mailbox('/mailbox', headers)).toContainEqual(message)
    }
    const link = await linkIn(`/mailbox/${message.id}/raw`, bearer(owner.secretKey))
    const eml = await get(`/mailbox/${message.id}.eml`, asMember(admin, owner.project.id))
    expect(eml.statusCode).toBe(200)

    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email, password: 'an invitee password', invitation: tokenOf(link) },
    })
    expect(signup.statusCode).toBe(201)
    const members = await get(`/projects/${owner.project.id}/members`, { cookie: owner.cookie })
    expect(members.json().data.map((member: { email: string }) => member.email)).toContain(email)
  })

  it('is hidden from members, who may not invite, and from every other project', async () => {
    const owner = await createAccount(server, 'Hidden invitations')
    const member = await addMember(server, owner, 'MEMBER')
    const stranger = await createAccount(server)
    await server.app.inject({
      method: 'POST',
      url: `/projects/${owner.project.id}/members`,
      headers: bearer(owner.secretKey),
      payload: { email: uniqueEmail('invitee'), role: 'ADMIN' },
    })
    const message = await waitForMessage(
      '/mailbox',
      bearer(owner.secretKey),
      'You are invited to Hidden invitations on Mailroom',
    )

    const memberHeaders = asMember(member, owner.project.id)
    expect(await mailbox('/mailbox', memberHeaders)).toEqual([])
    expect(await mailbox('/mailbox', bearer(stranger.secretKey))).toEqual([])
    expect(await mailbox('/users/@me/mailbox', { cookie: owner.cookie })).toEqual([])
    for (const [url, headers] of [
      [`/mailbox/${message.id}/raw`, memberHeaders],
      [`/mailbox/${message.id}.eml`, memberHeaders],
      [`/mailbox/${message.id}/raw`, bearer(stranger.secretKey)],
      [`/users/@me/mailbox/${message.id}/raw`, { cookie: owner.cookie }],
    ] as const) {
      const response = await get(url, headers)
      expect(response.statusCode, url).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Message'))
    }
  })
})

describe("a user's own account emails in their account mailbox", () => {
  it('holds their verification and reset emails, whose links work, and no one else sees them', async () => {
    const user = await signUp()
    // Verification is not required on this server: signup mailed nothing until asked.
    expect(await mailbox('/users/@me/mailbox', { cookie: user.cookie })).toEqual([])
    const asked = await server.app.inject({
      method: 'POST',
      url: '/auth/request-verification',
      headers: { cookie: user.cookie },
    })
    expect(asked.statusCode).toBe(200)
    const verification = await waitForMessage(
      '/users/@me/mailbox',
      { cookie: user.cookie },
      'Verify your email address',
    )
    expect(verification).toMatchObject({
      source: 'ACCOUNT',
      kind: 'VERIFY_EMAIL',
      to: [user.email],
      from: 'accounts@mailroom.test',
    })
    const link = await linkIn(`/users/@me/mailbox/${verification.id}/raw`, { cookie: user.cookie })
    const verified = await server.app.inject({
      method: 'POST',
      url: '/auth/verify-email',
      payload: { token: tokenOf(link) },
    })
    expect(verified.statusCode).toBe(200)
    expect((await get('/users/@me', { cookie: user.cookie })).json()).toMatchObject({ emailVerified: true })

    await server.app.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email: user.email } })
    const reset = await waitForMessage('/users/@me/mailbox', { cookie: user.cookie }, 'Reset your password')
    expect(reset.kind).toBe('RESET_PASSWORD')
    expect((await mailbox('/users/@me/mailbox', { cookie: user.cookie })).map((m) => m.subject)).toEqual([
      'Reset your password',
      'Verify your email address',
    ])

    // Another user, and the projects the user belongs to, see none of it.
    const other = await createAccount(server)
    await addMemberByEmail(other, user.email)
    expect(await mailbox('/users/@me/mailbox', { cookie: other.cookie })).toEqual([])
    expect(await mailbox('/mailbox', bearer(other.secretKey))).toEqual([])
    for (const [url, headers] of [
      [`/users/@me/mailbox/${reset.id}/raw`, { cookie: other.cookie }],
      [`/mailbox/${reset.id}/raw`, bearer(other.secretKey)],
    ] as const) {
      const response = await get(url, headers)
      expect(response.statusCode, url).toBe(404)
      expect(response.json()).toEqual(notFoundBody('Message'))
    }
  })

  it('needs a session; a message id that is no uuid is 422 with its field', async () => {
    const user = await signUp()
    const anonymous = await get('/users/@me/mailbox', {})
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json().error.code).toBe('UNAUTHORIZED')
    const bad = await get('/users/@me/mailbox/not-a-uuid/raw', { cookie: user.cookie })
    expect(bad.statusCode).toBe(422)
    expect(bad.json()).toEqual(badPathBody('id'))
  })
})

describe('where verification is required', () => {
  let strict: TestServer
  beforeAll(async () => {
    strict = await startTestServer({ config: { mailTransport: 'capture', requireEmailVerification: true } })
  })
  afterAll(() => strict.close())

  it('an unverified user, refused on project routes, reads the verification email signup mailed', async () => {
    const signup = await strict.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: uniqueEmail(), password: 'a long unusual password' },
    })
    const cookie = sessionCookie(signup.headers['set-cookie'])
    const project = await strict.app.inject({
      method: 'POST',
      url: '/users/@me/projects',
      headers: { cookie },
      payload: { name: 'Gated' },
    })
    const refused = await strict.app.inject({
      method: 'GET',
      url: '/mailbox',
      headers: { cookie, 'x-project-id': project.json().id },
    })
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error.code).toBe('EMAIL_VERIFICATION_REQUIRED')

    let messages: CapturedMessageView[] = []
    await vi.waitFor(async () => {
      messages = (
        await strict.app.inject({ method: 'GET', url: '/users/@me/mailbox', headers: { cookie } })
      ).json<MailboxPage>().data
      expect(messages.map((message) => message.subject)).toEqual(['Verify your email address'])
    }, eventually)
    const raw = await strict.app.inject({
      method: 'GET',
      url: `/users/@me/mailbox/${messages[0]?.id}/raw`,
      headers: { cookie },
    })
    const html = String((await simpleParser(raw.rawPayload)).html)
    const link = /<a href="([^"]+)"/.exec(html)?.[1] ?? ''
    const verified = await strict.app.inject({
      method: 'POST',
      url: '/auth/verify-email',
      payload: { token: tokenOf(link) },
    })
    expect(verified.statusCode).toBe(200)
    const allowed = await strict.app.inject({
      method: 'GET',
      url: '/mailbox',
      headers: { cookie, 'x-project-id': project.json().id },
    })
    expect(allowed.statusCode).toBe(200)
  })
})

/** Adds an existing user to the account's project, so the test can show membership reveals nothing either. */
async function addMemberByEmail(account: Account, email: string): Promise<void> {
  const added = await server.app.inject({
    method: 'POST',
    url: `/projects/${account.project.id}/members`,
    headers: bearer(account.secretKey),
    payload: { email },
  })
  expect(added.json().data.status).toBe('ACTIVE')
}
