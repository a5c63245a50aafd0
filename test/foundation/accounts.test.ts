import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, sessionCookie, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

describe('accounts: signup, login, logout', () => {
  it('signs up, sets an httpOnly session cookie and answers /users/@me', async () => {
    const email = uniqueEmail()
    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: email.toUpperCase(), password: 'long enough password' },
    })
    expect(signup.statusCode).toBe(201)
    expect(signup.json()).toMatchObject({ email, emailVerified: false })
    expect(signup.json()).not.toHaveProperty('passwordHash')
    const setCookie = String(signup.headers['set-cookie'])
    expect(setCookie).toMatch(/^mailroom_session=[^;]+;/)
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Lax')

    const me = await server.app.inject({
      method: 'GET',
      url: '/users/@me',
      headers: { cookie: sessionCookie(setCookie) },
    })
    expect(me.statusCode).toBe(200)
    expect(me.json()).toMatchObject({ id: signup.json().id, email })
  })

  it('refuses a second account for the same email, whatever its case', async () => {
    const email = uniqueEmail()
    const first = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email, password: 'password-one' },
    })
    expect(first.statusCode).toBe(201)
    const second = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: ` ${email.toUpperCase()} `.trim(), password: 'password-two' },
    })
    expect(second.statusCode).toBe(409)
    expect(second.json().error).toMatchObject({ code: 'CONFLICT', statusCode: 409 })
  })

  it('rejects a short password and an invalid email with field errors', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: 'not-an-email', password: 'short' },
    })
    expect(response.statusCode).toBe(422)
    const fields = response
      .json()
      .error.errors.map((error: { field: string; code: string }) => [error.field, error.code])
    expect(fields).toEqual([
      ['email', 'invalid_string'],
      ['password', 'too_small'],
    ])
  })

  it('logs in with the right password only', async () => {
    const account = await createAccount(server)
    const wrong = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: account.email, password: 'wrong password' },
    })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.headers['set-cookie']).toBeUndefined()
    const unknown = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: uniqueEmail(), password: account.password },
    })
    expect(unknown.statusCode).toBe(401)
    expect(unknown.json().error.message).toBe(wrong.json().error.message)

    const right = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: account.email.toUpperCase(), password: account.password },
    })
    expect(right.statusCode).toBe(200)
    const me = await server.app.inject({
      method: 'GET',
      url: '/users/@me',
      headers: { cookie: sessionCookie(right.headers['set-cookie']) },
    })
    expect(me.json().id).toBe(account.userId)
  })

  it('clears the cookie on logout', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/auth/logout' })
    expect(response.statusCode).toBe(200)
    expect(String(response.headers['set-cookie'])).toMatch(/^mailroom_session=;.*Expires=Thu, 01 Jan 1970/)
  })

  it('does not accept a tampered or missing session', async () => {
    const account = await createAccount(server)
    const [name, token] = account.cookie.split('=')
    const tampered = `${name}=${token?.slice(0, -2)}xx`
    for (const headers of [{ cookie: tampered }, {}]) {
      const response = await server.app.inject({ method: 'GET', url: '/users/@me', headers })
      expect(response.statusCode).toBe(401)
      expect(response.json().error.code).toBe('UNAUTHORIZED')
    }
  })

  it('refuses signups when DISABLE_SIGNUPS is set', async () => {
    const closed = await startTestServer({ config: { disableSignups: true }, worker: false })
    try {
      const response = await closed.app.inject({
        method: 'POST',
        url: '/auth/signup',
        payload: { email: uniqueEmail(), password: 'long enough password' },
      })
      expect(response.statusCode).toBe(403)
      expect(response.json().error.code).toBe('SIGNUPS_DISABLED')
      const config = await closed.app.inject({ method: 'GET', url: '/config' })
      expect(config.json()).toMatchObject({ signups: false, transport: 'capture' })
    } finally {
      await closed.close()
    }
  })
})

describe('projects', () => {
  it('creates a project owned by the user with a pk_/sk_ key pair', async () => {
    const account = await createAccount(server, 'Shop')
    expect(account.project).toMatchObject({ name: 'Shop', role: 'OWNER', disabled: false })
    expect(account.publicKey).toMatch(/^pk_[0-9a-f]{64}$/)
    expect(account.secretKey).toMatch(/^sk_[0-9a-f]{64}$/)
    const list = await server.app.inject({
      method: 'GET',
      url: '/users/@me/projects',
      headers: { cookie: account.cookie },
    })
    expect(list.json()).toEqual([expect.objectContaining({ id: account.project.id, public: account.publicKey })])
  })

  it('renames a project', async () => {
    const account = await createAccount(server)
    const response = await server.app.inject({
      method: 'PATCH',
      url: `/users/@me/projects/${account.project.id}`,
      headers: { cookie: account.cookie },
      payload: { name: 'Renamed' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ id: account.project.id, name: 'Renamed' })
  })

  it('deletes a project and everything scoped to it', async () => {
    const account = await createAccount(server, 'Doomed')
    const response = await server.app.inject({
      method: 'DELETE',
      url: `/users/@me/projects/${account.project.id}`,
      headers: { cookie: account.cookie },
      payload: { confirm: 'Doomed' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ success: true, message: 'Project deleted successfully' })
    const list = await server.app.inject({
      method: 'GET',
      url: '/users/@me/projects',
      headers: { cookie: account.cookie },
    })
    expect(list.json()).toEqual([])
  })

  it("another user cannot see, rename, rotate or delete someone else's project", async () => {
    const owner = await createAccount(server, 'Mine')
    const stranger = await createAccount(server)
    const url = `/users/@me/projects/${owner.project.id}`
    const attempts = [
      { method: 'PATCH' as const, url, payload: { name: 'Stolen' } },
      { method: 'POST' as const, url: `${url}/regenerate-keys` },
      { method: 'DELETE' as const, url, payload: { confirm: 'Mine' } },
    ]
    for (const attempt of attempts) {
      const response = await server.app.inject({ ...attempt, headers: { cookie: stranger.cookie } })
      expect(response.statusCode).toBe(404)
      expect(response.json().error.code).toBe('NOT_FOUND')
    }
    const list = await server.app.inject({
      method: 'GET',
      url: '/users/@me/projects',
      headers: { cookie: stranger.cookie },
    })
    expect(list.json().map((project: { id: string }) => project.id)).toEqual([stranger.project.id])
    const untouched = await server.app.inject({
      method: 'GET',
      url: '/users/@me/projects',
      headers: { cookie: owner.cookie },
    })
    expect(untouched.json()).toEqual([
      expect.objectContaining({ name: 'Mine', public: owner.publicKey, secret: owner.secretKey }),
    ])
  })

  it('rejects a project id that is not a uuid with 422', async () => {
    const account = await createAccount(server)
    const response = await server.app.inject({
      method: 'PATCH',
      url: '/users/@me/projects/not-a-uuid',
      headers: { cookie: account.cookie },
      payload: { name: 'x' },
    })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors[0]).toMatchObject({ field: 'id', code: 'invalid_string' })
  })
})
