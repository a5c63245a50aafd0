import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { invitations } from '../../src/db/schema/index.js'
import { badPathBody } from '../helpers/errors.js'
import { type Account, bearer, createAccount, uniqueEmail } from '../helpers/factories.js'
import { addMember, type Member } from '../helpers/members.js'
import { notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { systemEmailsTo, tokenOf, waitForSystemEmail } from '../helpers/system-mail.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

type Caller = Account | Member | { authorization: string }
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, caller: Caller, payload?: object) =>
  server.app.inject({
    method,
    url,
    headers: 'authorization' in caller ? caller : { cookie: caller.cookie },
    ...(payload ? { payload } : {}),
  })

const listUrl = (account: Account) => `/projects/${account.project.id}/invitations`
const resendUrl = (account: Account, id: string) => `/projects/${account.project.id}/invitations/${id}/resend`
const invitationUrl = (account: Account, id: string) => `/projects/${account.project.id}/invitations/${id}`

/** Invites an address without an account; the invitation's id as the list shows it, and its mailed link's token. */
async function invite(owner: Account, inviter: Caller, role: 'MEMBER' | 'ADMIN' | 'OWNER' = 'MEMBER') {
  const email = uniqueEmail('invitee')
  const invited = await call('POST', `/projects/${owner.project.id}/members`, inviter, { email, role })
  expect(invited.json().data).toMatchObject({ email, status: 'INVITED' })
  const token = tokenOf((await waitForSystemEmail(server, email)).link)
  const listed = await call('GET', listUrl(owner), owner)
  const id = listed.json().data.find((row: { email: string }) => row.email === email)?.id as string
  return { email, token, id }
}

const preview = (token: string) => server.app.inject({ method: 'GET', url: `/auth/invitation?token=${token}` })

const forbiddenBody = (message: string, details?: object) => ({
  success: false,
  error: {
    code: 'FORBIDDEN',
    message,
    statusCode: 403,
    requestId: expect.any(String),
    ...(details ? { details } : {}),
  },
  timestamp: expect.any(String),
})

async function rowOf(id: string) {
  const [row] = await server.ctx.db.select().from(invitations).where(eq(invitations.id, id))
  return row
}

describe('invitations: accepts', () => {
  it('lists pending invitations oldest first with who invited whom, with which role, and when', async () => {
    const owner = await createAccount(server)
    const admin = await addMember(server, owner, 'ADMIN')
    const first = await invite(owner, owner, 'ADMIN')
    const second = await invite(owner, admin)
    const third = await invite(owner, bearer(owner.secretKey))

    for (const caller of [owner, admin, bearer(owner.secretKey)]) {
      const listed = await call('GET', listUrl(owner), caller)
      expect(listed.statusCode).toBe(200)
      const row = (email: string, role: string, invitedBy: string | null) => ({
        id: expect.any(String),
        email,
        role,
        invitedBy,
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
        status: 'PENDING',
      })
      expect(listed.json()).toEqual({
        success: true,
        data: [
          row(first.email, 'ADMIN', owner.email),
          row(second.email, 'MEMBER', admin.email),
          row(third.email, 'MEMBER', null),
        ],
      })
      const [{ createdAt, expiresAt }] = listed.json().data
      expect(new Date(expiresAt).getTime() - new Date(createdAt).getTime()).toBeCloseTo(7 * 24 * 3600_000, -4)
    }
  })

  it('an accepted invitation, or the address joining otherwise, leaves the list', async () => {
    const owner = await createAccount(server)
    const accepted = await invite(owner, owner)
    const joinedOtherwise = await invite(owner, owner)
    const stays = await invite(owner, owner)

    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: accepted.email, password: 'an invitee password', invitation: accepted.token },
    })
    expect(signup.statusCode).toBe(201)
    // Signed up without the link, then added by an admin as the existing user they now are.
    const other = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: joinedOtherwise.email, password: 'an invitee password' },
    })
    expect(other.statusCode).toBe(201)
    const added = await call('POST', `/projects/${owner.project.id}/members`, owner, { email: joinedOtherwise.email })
    expect(added.json().data.status).toBe('ACTIVE')

    const listed = await call('GET', listUrl(owner), owner)
    expect(listed.json().data.map((row: { email: string }) => row.email)).toEqual([stays.email])
  })

  it('resend mails a new link valid seven more days, and the earlier link stops working', async () => {
    const owner = await createAccount(server, 'Resend project')
    const { email, token, id } = await invite(owner, owner, 'ADMIN')
    const before = await rowOf(id)

    const resent = await call('POST', resendUrl(owner, id), owner)
    expect(resent.statusCode).toBe(200)
    expect(resent.json()).toEqual({
      success: true,
      data: {
        id,
        email,
        role: 'ADMIN',
        invitedBy: owner.email,
        createdAt: before?.createdAt.toISOString(),
        expiresAt: expect.any(String),
        status: 'PENDING',
      },
    })
    expect(new Date(resent.json().data.expiresAt).getTime()).toBeGreaterThan(before?.expiresAt.getTime() ?? 0)

    const mail = await waitForSystemEmail(server, email, 2)
    expect(mail.subject).toBe('You are invited to Resend project on Mailroom')
    const newToken = tokenOf(mail.link)
    expect(newToken).not.toBe(token)
    expect((await preview(token)).statusCode).toBe(400)
    expect((await preview(newToken)).json().data).toMatchObject({ email, role: 'ADMIN', projectId: owner.project.id })
  })

  it('an expired invitation is listed as EXPIRED and a resend brings it back', async () => {
    const owner = await createAccount(server)
    const { email, id } = await invite(owner, owner)
    await server.ctx.db
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invitations.id, id))
    expect((await call('GET', listUrl(owner), owner)).json().data).toEqual([
      expect.objectContaining({ id, email, status: 'EXPIRED' }),
    ])
    const resent = await call('POST', resendUrl(owner, id), owner)
    expect(resent.json().data).toMatchObject({ id, status: 'PENDING' })
    const link = (await waitForSystemEmail(server, email, 2)).link
    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email, password: 'an invitee password', invitation: tokenOf(link) },
    })
    expect(signup.statusCode).toBe(201)
    const members = await call('GET', `/projects/${owner.project.id}/members`, owner)
    expect(members.json().data.map((member: { email: string }) => member.email)).toContain(email)
  })

  it('revoke withdraws the invitation: its link stops working and it leaves the list', async () => {
    const owner = await createAccount(server)
    const { email, token, id } = await invite(owner, owner)
    const revoked = await call('DELETE', invitationUrl(owner, id), owner)
    expect(revoked.statusCode).toBe(200)
    expect(revoked.json()).toEqual({ success: true, data: { message: 'Invitation revoked' } })
    expect((await call('GET', listUrl(owner), owner)).json().data).toEqual([])
    expect((await preview(token)).statusCode).toBe(400)
    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email, password: 'an invitee password', invitation: token },
    })
    expect(signup.statusCode).toBe(400)
    expect(await call('DELETE', invitationUrl(owner, id), owner)).toMatchObject({ statusCode: 404 })
  })
})

describe('invitations: rejects', () => {
  it('a member can neither list, resend nor revoke, and nothing changes', async () => {
    const owner = await createAccount(server)
    const member = await addMember(server, owner, 'MEMBER')
    const { email, id } = await invite(owner, owner)
    const before = await rowOf(id)
    const refused = forbiddenBody('This needs the ADMIN role or higher in the project; you are MEMBER', {
      requiredRole: 'ADMIN',
      role: 'MEMBER',
    })
    for (const [method, url] of [
      ['GET', listUrl(owner)],
      ['POST', resendUrl(owner, id)],
      ['DELETE', invitationUrl(owner, id)],
    ] as const) {
      const response = await call(method, url, member)
      expect(response.statusCode, `${method} ${url}`).toBe(403)
      expect(response.json()).toEqual(refused)
    }
    expect(await rowOf(id)).toEqual(before)
    expect(await systemEmailsTo(server, email)).toHaveLength(1)
  })

  it("an admin can neither resend nor revoke an owner's invitation; an owner can", async () => {
    const owner = await createAccount(server)
    const admin = await addMember(server, owner, 'ADMIN')
    const { email, id } = await invite(owner, owner, 'OWNER')
    const before = await rowOf(id)
    const resend = await call('POST', resendUrl(owner, id), admin)
    expect(resend.statusCode).toBe(403)
    expect(resend.json()).toEqual(forbiddenBody('Only a project owner can resend an invitation to become an owner'))
    const revoke = await call('DELETE', invitationUrl(owner, id), admin)
    expect(revoke.statusCode).toBe(403)
    expect(revoke.json()).toEqual(forbiddenBody('Only a project owner can revoke an invitation to become an owner'))
    expect(await rowOf(id)).toEqual(before)
    expect(await systemEmailsTo(server, email)).toHaveLength(1)

    expect((await call('POST', resendUrl(owner, id), owner)).statusCode).toBe(200)
    expect((await call('DELETE', invitationUrl(owner, id), owner)).statusCode).toBe(200)
  })

  it('bad ids answer 422 with the field path', async () => {
    const owner = await createAccount(server)
    const { id } = await invite(owner, owner)
    for (const [method, url, field] of [
      ['POST', resendUrl(owner, 'not-a-uuid'), 'invitationId'],
      ['DELETE', invitationUrl(owner, '12345'), 'invitationId'],
      ['GET', '/projects/not-a-uuid/invitations', 'id'],
      ['POST', `/projects/nope/invitations/${id}/resend`, 'id'],
    ] as const) {
      const response = await call(method, url, owner)
      expect(response.statusCode, `${method} ${url}`).toBe(422)
      expect(response.json()).toEqual(badPathBody(field))
    }
    expect(await rowOf(id)).toMatchObject({ acceptedAt: null })
  })
})

describe('invitations: scoping', () => {
  it('another project cannot see, resend or revoke an invitation: 404, and it stays as it was', async () => {
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    const { email, token, id } = await invite(owner, owner)
    const before = await rowOf(id)

    // Through the stranger's own project, by session and by key: no such invitation there.
    for (const caller of [stranger, bearer(stranger.secretKey)]) {
      for (const [method, url] of [
        ['POST', resendUrl(stranger, id)],
        ['DELETE', invitationUrl(stranger, id)],
      ] as const) {
        const response = await call(method, url, caller)
        expect(response.statusCode, `${method} ${url}`).toBe(404)
        expect(response.json()).toEqual(notFoundBody('Invitation'))
      }
      expect((await call('GET', listUrl(stranger), caller)).json().data).toEqual([])
    }
    // Through the owner's project: the stranger is no member, and the key is another project's.
    for (const caller of [stranger, bearer(stranger.secretKey)]) {
      for (const [method, url] of [
        ['GET', listUrl(owner)],
        ['POST', resendUrl(owner, id)],
        ['DELETE', invitationUrl(owner, id)],
      ] as const) {
        const response = await call(method, url, caller)
        expect(response.statusCode, `${method} ${url}`).toBe(404)
        expect(response.json()).toEqual(notFoundBody('Project'))
      }
    }
    expect(await rowOf(id)).toEqual(before)
    expect(await systemEmailsTo(server, email)).toHaveLength(1)
    expect((await preview(token)).statusCode).toBe(200)
  })
})
