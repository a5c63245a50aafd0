import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountTokens, users } from '../../src/db/schema/index.js'
import { type Account, createAccount, sessionCookie, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { systemEmailsTo, tokenOf, waitForSystemEmail } from '../helpers/system-mail.js'

let server: TestServer

beforeAll(async () => {
  // Signup mails a verification link only when verification is required.
  server = await startTestServer({ config: { requireEmailVerification: true } })
})
afterAll(() => server.close())

const post = (url: string, payload?: object, cookie?: string) =>
  server.app.inject({ method: 'POST', url, ...(payload ? { payload } : {}), headers: cookie ? { cookie } : {} })

const me = (cookie: string) => server.app.inject({ method: 'GET', url: '/users/@me', headers: { cookie } })

async function login(account: Account, password = account.password): Promise<string> {
  const response = await post('/auth/login', { email: account.email, password })
  expect(response.statusCode).toBe(200)
  return sessionCookie(response.headers['set-cookie'])
}

async function resetLink(account: Account, count = 1): Promise<string> {
  const response = await post('/auth/request-password-reset', { email: account.email })
  expect(response.json()).toEqual({
    success: true,
    data: { message: 'If that email exists, a reset link has been sent' },
  })
  return (await waitForSystemEmail(server, account.email, count)).link
}

function badToken(
  response: { statusCode: number; json(): { error: { code: string; message: string } } },
  kind: string,
) {
  expect(response.statusCode).toBe(400)
  expect(response.json().error).toMatchObject({ code: 'BAD_REQUEST', message: `Invalid or expired ${kind} token` })
}

describe('email verification', () => {
  it('verifies the address with the link mailed at signup, once', async () => {
    const account = await createAccount(server)
    expect((await me(account.cookie)).json().emailVerified).toBe(false)
    const mail = await waitForSystemEmail(server, account.email)
    expect(mail.subject).toBe('Verify your email address')

    const verified = await post('/auth/verify-email', { token: tokenOf(mail.link) })
    expect(verified.statusCode).toBe(200)
    expect(verified.json()).toEqual({ success: true, data: { message: 'Email verified successfully' } })
    expect((await me(account.cookie)).json().emailVerified).toBe(true)

    badToken(await post('/auth/verify-email', { token: tokenOf(mail.link) }), 'verification')
  })

  it('resends on request, at most three an hour, and answers "already verified" after', async () => {
    const account = await createAccount(server)
    await waitForSystemEmail(server, account.email)
    for (let sent = 2; sent <= 3; sent++) {
      const again = await post('/auth/request-verification', undefined, account.cookie)
      expect(again.json()).toEqual({ success: true, data: { message: 'Verification email sent' } })
      await waitForSystemEmail(server, account.email, sent)
    }
    const limited = await post('/auth/request-verification', undefined, account.cookie)
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error.code).toBe('RATE_LIMIT_EXCEEDED')

    // Every mailed link works until one is used: take the newest.
    const newest = (await systemEmailsTo(server, account.email)).at(-1)
    await post('/auth/verify-email', { token: tokenOf(newest?.link ?? '') })
    const after = await post('/auth/request-verification', undefined, account.cookie)
    expect(after.json()).toEqual({ success: true, data: { message: 'Email already verified' } })
    expect(await systemEmailsTo(server, account.email)).toHaveLength(3)
  })

  it('needs a session to resend', async () => {
    const response = await post('/auth/request-verification')
    expect(response.statusCode).toBe(401)
  })

  it('refuses an expired token, a reset token and a malformed one, and verifies nothing', async () => {
    const account = await createAccount(server)
    const verification = tokenOf((await waitForSystemEmail(server, account.email)).link)
    const reset = tokenOf(await resetLink(account, 2))

    badToken(await post('/auth/verify-email', { token: reset }), 'verification')
    await server.ctx.db
      .update(accountTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(accountTokens.userId, account.userId))
    badToken(await post('/auth/verify-email', { token: verification }), 'verification')

    const malformed = await post('/auth/verify-email', { token: 'not-a-token' })
    expect(malformed.statusCode).toBe(422)
    expect(malformed.json().error.errors).toEqual([expect.objectContaining({ field: 'token' })])
    expect((await me(account.cookie)).json().emailVerified).toBe(false)
  })
})

describe('password reset', () => {
  it('sets the new password, ends every session of the user at once, and the link works once', async () => {
    const account = await createAccount(server)
    const otherDevice = await login(account)
    expect((await me(otherDevice)).statusCode).toBe(200)

    const link = await resetLink(account, 2)
    expect(link).toMatch(/^http:\/\/localhost:3000\/app\/reset-password\?token=[0-9a-f]{64}$/)
    const reset = await post('/auth/reset-password', { token: tokenOf(link), newPassword: 'a brand new passphrase' })
    expect(reset.statusCode).toBe(200)
    expect(reset.json()).toEqual({ success: true, data: { message: 'Password reset successfully' } })

    for (const cookie of [account.cookie, otherDevice]) {
      const ended = await me(cookie)
      expect(ended.statusCode).toBe(401)
      expect(ended.json().error.code).toBe('UNAUTHORIZED')
    }
    expect((await post('/auth/login', { email: account.email, password: account.password })).statusCode).toBe(401)
    const fresh = await login(account, 'a brand new passphrase')
    expect((await me(fresh)).json()).toMatchObject({ id: account.userId, emailVerified: true })

    badToken(
      await post('/auth/reset-password', { token: tokenOf(link), newPassword: 'yet another passphrase' }),
      'reset',
    )
    expect((await me(fresh)).statusCode).toBe(200)
  })

  it("keeps the resetting user's own session when they are logged in", async () => {
    const account = await createAccount(server)
    const elsewhere = await login(account)
    const link = await resetLink(account, 2)
    const reset = await post(
      '/auth/reset-password',
      { token: tokenOf(link), newPassword: 'kept session passphrase' },
      account.cookie,
    )
    expect(reset.statusCode).toBe(200)
    expect((await me(account.cookie)).statusCode).toBe(200)
    expect((await me(elsewhere)).statusCode).toBe(401)
  })

  it('refuses a weak new password and leaves the token and the old password usable', async () => {
    const account = await createAccount(server)
    const token = tokenOf(await resetLink(account, 2))
    for (const newPassword of ['password123', 'qwertyuiop', 'short']) {
      const response = await post('/auth/reset-password', { token, newPassword })
      expect(response.statusCode).toBe(422)
      expect(response.json().error.errors).toEqual([expect.objectContaining({ field: 'newPassword' })])
    }
    expect((await me(account.cookie)).statusCode).toBe(200)
    await login(account)
    expect((await post('/auth/reset-password', { token, newPassword: 'finally a good one' })).statusCode).toBe(200)
  })

  it('refuses a verification token, an expired token and an unknown one, and changes nothing', async () => {
    const account = await createAccount(server)
    const verification = tokenOf((await waitForSystemEmail(server, account.email)).link)
    const reset = tokenOf(await resetLink(account, 2))
    await server.ctx.db
      .update(accountTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(accountTokens.userId, account.userId), eq(accountTokens.purpose, 'RESET_PASSWORD')))

    for (const token of [verification, reset, 'ab'.repeat(32)]) {
      badToken(await post('/auth/reset-password', { token, newPassword: 'some new passphrase' }), 'reset')
    }
    expect((await me(account.cookie)).statusCode).toBe(200)
    await login(account)
    // The verification token was not spent by the failed reset.
    expect((await post('/auth/verify-email', { token: verification })).statusCode).toBe(200)
  })

  it('answers the same for an unknown address and sends nothing', async () => {
    const email = uniqueEmail('nobody')
    const response = await post('/auth/request-password-reset', { email })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      success: true,
      data: { message: 'If that email exists, a reset link has been sent' },
    })
    const [user] = await server.ctx.db.select().from(users).where(eq(users.email, email))
    expect(user).toBeUndefined()
  })

  it('mails at most three links an hour to one address, answering the same each time', async () => {
    const account = await createAccount(server)
    for (let count = 1; count <= 5; count++) {
      const response = await post('/auth/request-password-reset', { email: account.email.toUpperCase() })
      expect(response.statusCode).toBe(200)
    }
    await waitForSystemEmail(server, account.email, 4)
    const resets = (await systemEmailsTo(server, account.email)).filter(
      (mail) => mail.subject === 'Reset your password',
    )
    expect(resets).toHaveLength(3)
    const issued = await server.ctx.db
      .select()
      .from(accountTokens)
      .where(and(eq(accountTokens.userId, account.userId), eq(accountTokens.purpose, 'RESET_PASSWORD')))
    expect(issued).toHaveLength(3)
  })
})

describe('sessions', () => {
  it('logout ends the session on the server: the old cookie no longer works', async () => {
    const account = await createAccount(server)
    const out = await server.app.inject({ method: 'GET', url: '/auth/logout', headers: { cookie: account.cookie } })
    expect(out.statusCode).toBe(200)
    expect((await me(account.cookie)).statusCode).toBe(401)
    const project = await server.app.inject({
      method: 'GET',
      url: '/contacts',
      headers: { cookie: account.cookie, 'x-project-id': account.project.id },
    })
    expect(project.statusCode).toBe(401)
  })

  it('POST /auth/logout ends the session and clears the cookie, as GET does', async () => {
    const account = await createAccount(server)
    const out = await server.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie: account.cookie } })
    expect(out.statusCode).toBe(200)
    expect(out.json()).toEqual({ success: true })
    expect(String(out.headers['set-cookie'])).toMatch(/^mailroom_session=;.*Expires=Thu, 01 Jan 1970/)
    expect((await me(account.cookie)).statusCode).toBe(401)
  })
})
