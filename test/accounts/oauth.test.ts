import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oauthAccounts, users } from '../../src/db/schema/index.js'
import { createAccount, sessionCookie, uniqueEmail } from '../helpers/factories.js'
import { type OAuthProviderServer, startOAuthProvider } from '../helpers/oauth-provider.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let provider: OAuthProviderServer
let server: TestServer
let userIds = 1000

beforeAll(async () => {
  provider = await startOAuthProvider('mailroom-client', 'mailroom-client-secret')
  const github = provider.config('mailroom-client', 'mailroom-client-secret')
  server = await startTestServer({
    worker: false,
    config: {
      oauth: { github, google: { ...github, userUrl: `${provider.url}/userinfo`, emailsUrl: undefined } },
    },
  })
})
afterAll(async () => {
  await server.close()
  await provider.close()
})

type Flow = { status: number; location: string; cookie: string | undefined; body: string }

/** The browser's part: start at Mailroom, follow the provider's redirect over HTTP, come back with the code. */
async function signIn(
  name: 'github' | 'google',
  tamper?: (callback: URL, cookie: string) => [URL, string],
): Promise<Flow> {
  const start = await server.app.inject({ method: 'GET', url: `/auth/oauth/${name}` })
  expect(start.statusCode).toBe(302)
  const flowCookie = sessionCookie(start.headers['set-cookie'])
  const authorize = new URL(String(start.headers.location))
  expect(authorize.origin + authorize.pathname).toBe(`${provider.url}/authorize`)
  expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
    response_type: 'code',
    client_id: 'mailroom-client',
    redirect_uri: `http://localhost:3000/auth/oauth/${name}/callback`,
    code_challenge_method: 'S256',
    state: expect.stringMatching(/.{20,}/),
    code_challenge: expect.stringMatching(/^[\w-]{43}$/),
  })
  const approved = await fetch(authorize, { redirect: 'manual' })
  expect(approved.status).toBe(302)
  let callback = new URL(String(approved.headers.get('location')))
  let cookie = flowCookie
  if (tamper) [callback, cookie] = tamper(callback, flowCookie)
  const done = await server.app.inject({
    method: 'GET',
    url: callback.pathname + callback.search,
    headers: { cookie },
  })
  const setCookies = [done.headers['set-cookie'] ?? []].flat().filter((value) => value.startsWith('mailroom_session='))
  return {
    status: done.statusCode,
    location: String(done.headers.location ?? ''),
    cookie: setCookies[0] ? sessionCookie(setCookies[0]) : undefined,
    body: done.body,
  }
}

const me = (cookie: string) => server.app.inject({ method: 'GET', url: '/users/@me', headers: { cookie } })
const nextId = () => String(userIds++)

describe('OAuth sign-in', () => {
  it('lists the configured providers', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/auth/oauth-config' })
    expect(response.json()).toEqual({ success: true, data: { github: true, google: true } })
    const features = await server.app.inject({ method: 'GET', url: '/config' })
    expect(features.json()).toMatchObject({
      signups: true,
      emailVerificationRequired: false,
      oauth: { github: true, google: true },
    })
    const plain = await startTestServer({ worker: false, config: { requireEmailVerification: true } })
    try {
      const none = await plain.app.inject({ method: 'GET', url: '/auth/oauth-config' })
      expect(none.json()).toEqual({ success: true, data: { github: false, google: false } })
      const start = await plain.app.inject({ method: 'GET', url: '/auth/oauth/github' })
      expect(start.statusCode).toBe(404)
      const plainFeatures = await plain.app.inject({ method: 'GET', url: '/config' })
      expect(plainFeatures.json()).toMatchObject({
        emailVerificationRequired: true,
        oauth: { github: false, google: false },
      })
    } finally {
      await plain.close()
    }
  })

  it('creates a verified account on first GitHub sign-in and signs into the same one again', async () => {
    const email = uniqueEmail('octo')
    const id = nextId()
    provider.signInAs({ id, email, verified: true })
    const first = await signIn('github')
    expect(first.status).toBe(302)
    expect(first.location).toBe('http://localhost:3000/')
    const profile = (await me(first.cookie ?? '')).json()
    expect(profile).toMatchObject({ email, emailVerified: true })

    provider.signInAs({ id, email, verified: true })
    const second = await signIn('github')
    expect((await me(second.cookie ?? '')).json().id).toBe(profile.id)
    expect(provider.tokenRequests.slice(-2)).toEqual(['', ''])
  })

  it('links Google sign-in to an existing account through a verified address', async () => {
    const account = await createAccount(server)
    provider.signInAs({ id: nextId(), email: account.email, verified: true })
    const flow = await signIn('google')
    expect(flow.status).toBe(302)
    expect((await me(flow.cookie ?? '')).json()).toMatchObject({ id: account.userId, emailVerified: true })
  })

  it('voids the password and sessions of an unverified account it links to (someone signed up with your address)', async () => {
    const squatter = await createAccount(server)
    provider.signInAs({ id: nextId(), email: squatter.email, verified: true })
    const flow = await signIn('github')
    expect((await me(flow.cookie ?? '')).json().id).toBe(squatter.userId)
    expect((await me(squatter.cookie)).statusCode).toBe(401)
    const login = await server.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: squatter.email, password: squatter.password },
    })
    expect(login.statusCode).toBe(401)
  })

  it('refuses an address the provider has not verified: no account made or linked', async () => {
    const account = await createAccount(server)
    const id = nextId()
    for (const email of [account.email, uniqueEmail('unverified')]) {
      provider.signInAs({ id, email, verified: false })
      const flow = await signIn('github')
      expect(flow.status).toBe(400)
      expect(JSON.parse(flow.body).error).toMatchObject({ code: 'BAD_REQUEST' })
      expect(flow.cookie).toBeUndefined()
    }
    const links = await server.ctx.db.select().from(oauthAccounts).where(eq(oauthAccounts.providerAccountId, id))
    expect(links).toEqual([])
    expect(await server.ctx.db.select().from(users).where(eq(users.id, account.userId))).toEqual([
      expect.objectContaining({ emailVerified: false }),
    ])
  })

  it('refuses a callback whose state does not match the browser that started, before any token request', async () => {
    provider.signInAs({ id: nextId(), email: uniqueEmail(), verified: true })
    const before = provider.tokenRequests.length
    const flow = await signIn('github', (callback, cookie) => {
      callback.searchParams.set('state', 'forged-state-value-forged')
      return [callback, cookie]
    })
    expect(flow.status).toBe(400)
    expect(JSON.parse(flow.body).error.message).toMatch(/state/)
    expect(provider.tokenRequests.length).toBe(before)

    const noCookie = await signIn('github', (callback) => [callback, ''])
    expect(noCookie.status).toBe(400)
  })

  it('sends the PKCE verifier: a wrong one is refused by the provider and answered 400, not 500', async () => {
    provider.signInAs({ id: nextId(), email: uniqueEmail(), verified: true })
    const flow = await signIn('github', (callback, cookie) => {
      const [name, value = ''] = cookie.split('=')
      const [which, state] = decodeURIComponent(value).split('.')
      return [callback, `${name}=${encodeURIComponent(`${which}.${state}.${'x'.repeat(43)}`)}`]
    })
    expect(flow.status).toBe(400)
    expect(provider.tokenRequests.at(-1)).toBe('code_verifier')
    expect(flow.cookie).toBeUndefined()
  })
})
