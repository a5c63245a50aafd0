import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { emails, projects } from '../../src/db/schema/index.js'
import { revealProjectKeys } from '../../src/modules/projects/keys.js'
import { eventually } from '../helpers/emails.js'
import { bearer, createAccount, sessionCookie, uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { waitForSystemEmail } from '../helpers/system-mail.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    config: { systemEmailFrom: { email: 'accounts@mailroom.test', name: 'Team' }, requireEmailVerification: true },
  })
})
afterAll(() => server.close())

describe('system mail', () => {
  it('mails account emails from the configured system sender through the outbox into the local mailbox', async () => {
    const email = uniqueEmail()
    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email, password: 'a long unusual password' },
    })
    expect(signup.statusCode).toBe(201)

    const mail = await waitForSystemEmail(server, email)
    expect(mail.from).toBe('"Team" <accounts@mailroom.test>')
    expect(mail.subject).toBe('Verify your email address')
    expect(mail.link).toMatch(/^http:\/\/localhost:3000\/app\/verify-email\?token=[0-9a-f]{64}$/)
    // The email went through the ordinary pipeline: a row of the system project, marked SENT once handed over.
    await vi.waitFor(async () => {
      const [row] = await server.ctx.db
        .select({ status: emails.status, system: projects.system })
        .from(emails)
        .innerJoin(projects, eq(projects.id, emails.projectId))
        .where(eq(emails.toEmail, email))
      expect(row).toEqual({ status: 'SENT', system: true })
    }, eventually)
  })

  it('keeps the system project out of every user and key: not listed, not reachable, its keys refused', async () => {
    const account = await createAccount(server)
    await waitForSystemEmail(server, account.email)
    const [system] = await server.ctx.db
      .select({ id: projects.id, publicKeySealed: projects.publicKeySealed, secretKeySealed: projects.secretKeySealed })
      .from(projects)
      .where(eq(projects.system, true))
    if (!system) throw new Error('no system project')

    const listed = await server.app.inject({
      method: 'GET',
      url: '/users/@me/projects',
      headers: { cookie: account.cookie },
    })
    expect(listed.json().map((project: { id: string }) => project.id)).toEqual([account.project.id])

    const asMember = await server.app.inject({
      method: 'GET',
      url: '/mailbox',
      headers: { cookie: account.cookie, 'x-project-id': system.id },
    })
    expect(asMember.statusCode).toBe(404)

    const keys = revealProjectKeys(server.config.secret, system.id, system)
    expect(keys.secretKey).toMatch(/^system_sk_/)
    for (const key of [keys.secretKey, keys.publicKey]) {
      const withKey = await server.app.inject({ method: 'GET', url: '/mailbox', headers: bearer(key) })
      expect(withKey.statusCode).toBe(401)
      expect(withKey.json().error.code).toBe('INVALID_API_KEY')
    }
    const other = await server.app.inject({ method: 'GET', url: '/mailbox', headers: bearer(account.secretKey) })
    expect(other.json().data).toEqual([])
  })

  it('refuses a common or short password at signup and creates nothing', async () => {
    for (const [password, code] of [
      ['Password1', 'custom'],
      ['iloveyou1', 'custom'],
      ['short', 'too_small'],
    ]) {
      const email = uniqueEmail()
      const response = await server.app.inject({ method: 'POST', url: '/auth/signup', payload: { email, password } })
      expect(response.statusCode).toBe(422)
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'password', code }],
      })
      const login = await server.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } })
      expect(login.statusCode).toBe(401)
    }
  })

  it('a session cookie of a signup works at once', async () => {
    const signup = await server.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { email: uniqueEmail(), password: 'another unusual password' },
    })
    const me = await server.app.inject({
      method: 'GET',
      url: '/users/@me',
      headers: { cookie: sessionCookie(signup.headers['set-cookie']) },
    })
    expect(me.statusCode).toBe(200)
  })
})
