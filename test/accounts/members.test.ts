import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memberships } from '../../src/db/schema/index.js'
import { type Account, bearer, createAccount, sessionCookie, uniqueEmail } from '../helpers/factories.js'
import { addMember, type Member } from '../helpers/members.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { systemEmailsTo, tokenOf, waitForSystemEmail } from '../helpers/system-mail.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

type Caller = { cookie: string } | Account | Member
const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  caller: Caller | { authorization: string },
  payload?: object,
) =>
  server.app.inject({
    method,
    url,
    headers: 'authorization' in caller ? caller : { cookie: caller.cookie },
    ...(payload ? { payload } : {}),
  })

async function roles(account: Account): Promise<Record<string, string>> {
  const rows = await server.ctx.db
    .select({ userId: memberships.userId, role: memberships.role })
    .from(memberships)
    .where(eq(memberships.projectId, account.project.id))
  return Object.fromEntries(rows.map((row) => [row.userId, row.role]))
}

function expectError(
  response: { statusCode: number; json(): { error: { code: string } } },
  status: number,
  code: string,
) {
  expect(response.statusCode).toBe(status)
  expect(response.json().error).toMatchObject({ code, statusCode: status, requestId: expect.any(String) })
}

describe('members: list and invite', () => {
  it('adds an existing user at once, lists members oldest first, and the member can use the project', async () => {
    const owner = await createAccount(server)
    const member = await addMember(server, owner, 'MEMBER')
    const list = await call('GET', `/projects/${owner.project.id}/members`, member)
    expect(list.statusCode).toBe(200)
    expect(list.json()).toEqual({
      success: true,
      data: [
        { userId: owner.userId, email: owner.email, role: 'OWNER', createdAt: expect.any(String) },
        { userId: member.userId, email: member.email, role: 'MEMBER', createdAt: expect.any(String) },
      ],
    })
    const contacts = await server.app.inject({
      method: 'GET',
      url: '/contacts',
      headers: { cookie: member.cookie, 'x-project-id': owner.project.id },
    })
    expect(contacts.statusCode).toBe(200)
    // Verification is not required on this server, so signup mailed nothing; adding an existing user neither.
    expect(await systemEmailsTo(server, member.email)).toEqual([])
    const again = await call('POST', `/projects/${owner.project.id}/members`, owner, { email: member.email })
    expectError(again, 409, 'CONFLICT')
  })

  it('mails an invitation to an address without an account; signing up through the link joins the project', async () => {
    const owner = await createAccount(server, 'Team project')
    const email = uniqueEmail('invitee')
    const invited = await call('POST', `/projects/${owner.project.id}/members`, owner, { email, role: 'ADMIN' })
    expect(invited.json()).toEqual({ success: true, data: { userId: null, email, role: 'ADMIN', status: 'INVITED' } })

    const mail = await waitForSystemEmail(server, email)
    expect(mail.subject).toBe('You are invited to Team project on Mailroom')
    expect(mail.text).toContain(owner.email)
    expect(mail.link).toMatch(/^http:\/\/localhost:3000\/app\/invitation\?token=/)
    const token = tokenOf(mail.link)

    // The link's page shows what it invites to before anyone signs up.
    const preview = await server.app.inject({ method: 'GET', url: `/auth/invitation?token=${token}` })
    expect(preview.json()).toEqual({
      success: true,
      data: {
        projectId: owner.project.id,
        projectName: 'Team project',
        email,
        role: 'ADMIN',
        invitedBy: owner.email,
        expiresAt: expect.any(String),
      },
    })

    const wrongAddress = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: uniqueEmail('other'), password: 'an invitee password', invitation: token },
    })
    expectError(wrongAddress, 400, 'BAD_REQUEST')

    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email, password: 'an invitee password', invitation: token },
    })
    expect(signup.statusCode).toBe(201)
    expect(signup.json()).toMatchObject({ email, emailVerified: true })
    expect((await roles(owner))[signup.json().id]).toBe('ADMIN')
    // No verification email: the invitation link proved the address.
    expect(await systemEmailsTo(server, email)).toHaveLength(1)

    const reused = await call(
      'POST',
      '/auth/accept-invitation',
      { cookie: sessionCookie(signup.headers['set-cookie']) },
      { token },
    )
    expectError(reused, 400, 'BAD_REQUEST')
    const usedPreview = await server.app.inject({ method: 'GET', url: `/auth/invitation?token=${token}` })
    expectError(usedPreview, 400, 'BAD_REQUEST')
    const forged = await server.app.inject({ method: 'GET', url: `/auth/invitation?token=${token.slice(0, -2)}xx` })
    expectError(forged, 400, 'BAD_REQUEST')
  })

  it('an existing user invited before signing up joins by logging in with the link; an expired link is refused', async () => {
    const owner = await createAccount(server)
    const email = uniqueEmail('later')
    await call('POST', `/projects/${owner.project.id}/members`, owner, { email })
    const token = tokenOf((await waitForSystemEmail(server, email)).link)
    // They sign up without the link (another tab), then log in with it.
    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email, password: 'later password' },
    })
    expect(signup.statusCode).toBe(201)
    const login = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email, password: 'later password', invitation: token },
    })
    expect(login.statusCode).toBe(200)
    expect((await roles(owner))[signup.json().id]).toBe('MEMBER')

    const second = await createAccount(server)
    const email2 = uniqueEmail('expired')
    await call('POST', `/projects/${second.project.id}/members`, second, { email: email2 })
    const expired = tokenOf((await waitForSystemEmail(server, email2)).link)
    await server.ctx.db.execute(
      `UPDATE invitations SET expires_at = now() - interval '1 second' WHERE email = '${email2}'`,
    )
    const late = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: email2, password: 'expired password', invitation: expired },
    })
    expectError(late, 400, 'BAD_REQUEST')
    const none = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: email2, password: 'expired password' },
    })
    expect(none.statusCode).toBe(401)
  })

  it('a member cannot invite; an admin cannot invite an owner; nobody invites into a project they do not administer', async () => {
    const owner = await createAccount(server)
    const member = await addMember(server, owner, 'MEMBER')
    const admin = await addMember(server, owner, 'ADMIN')
    const stranger = await createAccount(server)
    const before = await roles(owner)
    const url = `/projects/${owner.project.id}/members`

    expectError(await call('POST', url, member, { email: uniqueEmail() }), 403, 'FORBIDDEN')
    expectError(await call('POST', url, admin, { email: stranger.email, role: 'OWNER' }), 403, 'FORBIDDEN')
    expectError(await call('POST', url, stranger, { email: uniqueEmail() }), 404, 'NOT_FOUND')
    expectError(await call('POST', url, bearer(stranger.secretKey), { email: uniqueEmail() }), 404, 'NOT_FOUND')
    expect(await roles(owner)).toEqual(before)

    const bad = await call('POST', url, owner, { email: 'nope', role: 'KING' })
    expectError(bad, 422, 'VALIDATION_ERROR')
    expect(bad.json().error.errors.map((error: { field: string }) => error.field)).toEqual(['email', 'role'])
  })
})

describe('members: roles and removal', () => {
  it('an admin manages members below owner; only an owner makes or changes owners', async () => {
    const owner = await createAccount(server)
    const admin = await addMember(server, owner, 'ADMIN')
    const member = await addMember(server, owner, 'MEMBER')
    const base = `/projects/${owner.project.id}/members`

    const promoted = await call('PATCH', `${base}/${member.userId}`, admin, { role: 'ADMIN' })
    expect(promoted.json()).toEqual({
      success: true,
      data: { userId: member.userId, email: member.email, role: 'ADMIN' },
    })
    await call('PATCH', `${base}/${member.userId}`, admin, { role: 'MEMBER' })

    const before = await roles(owner)
    expectError(await call('PATCH', `${base}/${member.userId}`, admin, { role: 'OWNER' }), 403, 'FORBIDDEN')
    expectError(await call('PATCH', `${base}/${admin.userId}`, admin, { role: 'OWNER' }), 403, 'FORBIDDEN')
    expectError(await call('PATCH', `${base}/${owner.userId}`, admin, { role: 'MEMBER' }), 403, 'FORBIDDEN')
    expectError(await call('DELETE', `${base}/${owner.userId}`, admin), 403, 'FORBIDDEN')
    expectError(await call('PATCH', `${base}/${member.userId}`, member, { role: 'ADMIN' }), 403, 'FORBIDDEN')
    expectError(await call('PATCH', `${base}/${member.userId}`, member, { role: 'OWNER' }), 403, 'FORBIDDEN')
    expectError(await call('DELETE', `${base}/${admin.userId}`, member), 403, 'FORBIDDEN')
    expect(await roles(owner)).toEqual(before)

    const made = await call('PATCH', `${base}/${admin.userId}`, owner, { role: 'OWNER' })
    expect(made.json().data.role).toBe('OWNER')
  })

  it('the last owner can neither leave nor be removed or demoted; with a second owner they can', async () => {
    const owner = await createAccount(server)
    const base = `/projects/${owner.project.id}/members/${owner.userId}`
    for (const attempt of [
      call('PATCH', base, owner, { role: 'ADMIN' }),
      call('DELETE', base, owner),
      call('DELETE', base, bearer(owner.secretKey)),
      call('PATCH', base, bearer(owner.secretKey), { role: 'MEMBER' }),
    ]) {
      const response = await attempt
      expectError(response, 409, 'CONFLICT')
      expect(response.json().error.message).toBe('A project needs at least one owner')
    }
    expect(await roles(owner)).toEqual({ [owner.userId]: 'OWNER' })

    const second = await addMember(server, owner, 'OWNER')
    const demoted = await call('PATCH', base, second, { role: 'ADMIN' })
    expect(demoted.statusCode).toBe(200)
    expectError(
      await call('PATCH', `/projects/${owner.project.id}/members/${second.userId}`, second, { role: 'MEMBER' }),
      409,
      'CONFLICT',
    )
  })

  it("removal ends the removed user's sessions at once and takes the project away", async () => {
    const owner = await createAccount(server)
    const member = await addMember(server, owner, 'MEMBER')
    const otherLogin = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: member.email, password: member.password },
    })
    const otherCookie = sessionCookie(otherLogin.headers['set-cookie'])
    const removed = await call('DELETE', `/projects/${owner.project.id}/members/${member.userId}`, owner)
    expect(removed.json()).toEqual({ success: true, data: { message: 'Member removed successfully' } })

    for (const cookie of [member.cookie, otherCookie]) {
      const me = await server.app.inject({ method: 'GET', url: '/users/@me', headers: { cookie } })
      expect(me.statusCode).toBe(401)
    }
    const login = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: member.email, password: member.password },
    })
    const project = await server.app.inject({
      method: 'GET',
      url: '/contacts',
      headers: { cookie: sessionCookie(login.headers['set-cookie']), 'x-project-id': owner.project.id },
    })
    expectError(project, 404, 'NOT_FOUND')
  })

  it('a member may leave and keeps their own session', async () => {
    const owner = await createAccount(server)
    const member = await addMember(server, owner, 'MEMBER')
    const left = await call('DELETE', `/projects/${owner.project.id}/members/${member.userId}`, member)
    expect(left.statusCode).toBe(200)
    const me = await server.app.inject({ method: 'GET', url: '/users/@me', headers: { cookie: member.cookie } })
    expect(me.statusCode).toBe(200)
    expect(Object.keys(await roles(owner))).toEqual([owner.userId])
  })

  it("another project's members, ids and keys are out of reach", async () => {
    const owner = await createAccount(server)
    const member = await addMember(server, owner, 'MEMBER')
    const stranger = await createAccount(server)
    const before = await roles(owner)
    const base = `/projects/${owner.project.id}/members`
    expectError(await call('GET', base, stranger), 404, 'NOT_FOUND')
    expectError(await call('GET', base, bearer(stranger.secretKey)), 404, 'NOT_FOUND')
    expectError(await call('PATCH', `${base}/${member.userId}`, stranger, { role: 'ADMIN' }), 404, 'NOT_FOUND')
    expectError(await call('DELETE', `${base}/${member.userId}`, bearer(stranger.secretKey)), 404, 'NOT_FOUND')
    // A user of the caller's own project cannot be reached through it either.
    expectError(
      await call('PATCH', `/projects/${stranger.project.id}/members/${member.userId}`, stranger, { role: 'ADMIN' }),
      404,
      'NOT_FOUND',
    )
    expectError(await call('GET', '/projects/not-a-uuid/members', owner), 422, 'VALIDATION_ERROR')
    expect(await roles(owner)).toEqual(before)
  })

  it('a secret key acts as an owner: it can add an owner', async () => {
    const owner = await createAccount(server)
    const other = await createAccount(server)
    const added = await call('POST', `/projects/${owner.project.id}/members`, bearer(owner.secretKey), {
      email: other.email,
      role: 'OWNER',
    })
    expect(added.json().data).toMatchObject({ userId: other.userId, role: 'OWNER', status: 'ACTIVE' })
  })
})
