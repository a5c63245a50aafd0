import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { tokenOf, waitForSystemEmail } from '../helpers/system-mail.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ config: { requireEmailVerification: true } })
})
afterAll(() => server.close())

describe('REQUIRE_EMAIL_VERIFICATION', () => {
  it('keeps an unverified password account out of project routes until it follows the mailed link', async () => {
    const account = await createAccount(server)
    const contacts = () =>
      server.app.inject({
        method: 'GET',
        url: '/contacts',
        headers: { cookie: account.cookie, 'x-project-id': account.project.id },
      })
    const refused = await contacts()
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error).toMatchObject({ code: 'EMAIL_VERIFICATION_REQUIRED', statusCode: 403 })
    // The project's own secret key is not a person and is not held back.
    const withKey = await server.app.inject({ method: 'GET', url: '/contacts', headers: bearer(account.secretKey) })
    expect(withKey.statusCode).toBe(200)

    const link = (await waitForSystemEmail(server, account.email)).link
    const verified = await server.app.inject({
      method: 'POST',
      url: '/auth/verify-email',
      payload: { token: tokenOf(link) },
    })
    expect(verified.statusCode).toBe(200)
    expect((await contacts()).statusCode).toBe(200)
  })
})
