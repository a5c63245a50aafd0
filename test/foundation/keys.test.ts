import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../src/http/app-type.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let account: Account

/** One route per auth scope, answering with the project the request was authorised for. */
function scopeRoutes(app: App): void {
  for (const auth of ['secret', 'track', 'project'] as const) {
    const config = { auth, role: auth === 'project' ? ('MEMBER' as const) : undefined }
    app.get(`/scope/${auth}`, { config }, async (request) => ({ projectId: request.project?.id }))
  }
  app.post('/scope/send', { config: { auth: 'secret', sending: true } }, async () => ({ sent: true }))
}

beforeAll(async () => {
  server = await startTestServer({ routes: scopeRoutes, worker: false })
  account = await createAccount(server)
})
afterAll(async () => {
  await server.close()
})

function call(url: string, headers: Record<string, string> = {}) {
  return server.app.inject({ method: 'GET', url, headers })
}

describe('API keys', () => {
  it('a secret key authorises secret, track and project routes for its own project', async () => {
    for (const scope of ['secret', 'track', 'project']) {
      const response = await call(`/scope/${scope}`, bearer(account.secretKey))
      expect(response.statusCode).toBe(200)
      expect(response.json()).toEqual({ projectId: account.project.id })
    }
  })

  it('a public key is accepted on the track scope only', async () => {
    expect((await call('/scope/track', bearer(account.publicKey))).json()).toEqual({ projectId: account.project.id })
    for (const scope of ['secret', 'project']) {
      const response = await call(`/scope/${scope}`, bearer(account.publicKey))
      expect(response.statusCode).toBe(401)
      expect(response.json()).toEqual({
        success: false,
        error: {
          code: 'INVALID_API_KEY',
          message: 'A public key can only be used with /v1/track; use the secret key for this endpoint',
          statusCode: 401,
          requestId: response.headers['x-request-id'],
          suggestion: expect.any(String),
        },
        timestamp: expect.any(String),
      })
    }
  })

  it('a missing, malformed or unknown key is 401 INVALID_API_KEY', async () => {
    const unknownKey = `sk_${'0'.repeat(64)}`
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer nope' }, bearer(unknownKey)]) {
      const response = await call('/scope/secret', headers)
      expect(response.statusCode).toBe(401)
      expect(response.json().error.code).toBe('INVALID_API_KEY')
    }
  })

  it('rotation replaces both keys and the old ones fail on the very next request', async () => {
    const own = await createAccount(server)
    const rotated = await server.app.inject({
      method: 'POST',
      url: `/users/@me/projects/${own.project.id}/regenerate-keys`,
      headers: { cookie: own.cookie },
    })
    expect(rotated.statusCode).toBe(200)
    const fresh = rotated.json<{ public: string; secret: string }>()
    expect(fresh.public).toMatch(/^pk_[0-9a-f]{64}$/)
    expect(fresh.secret).toMatch(/^sk_[0-9a-f]{64}$/)

    expect((await call('/scope/secret', bearer(own.secretKey))).statusCode).toBe(401)
    expect((await call('/scope/track', bearer(own.publicKey))).statusCode).toBe(401)
    expect((await call('/scope/secret', bearer(fresh.secret))).json()).toEqual({ projectId: own.project.id })
    expect((await call('/scope/track', bearer(fresh.public))).json()).toEqual({ projectId: own.project.id })
  })

  it('a disabled project gets 403 on sending routes but can still read', async () => {
    const own = await createAccount(server)
    await server.ctx.pool.query(
      "UPDATE projects SET disabled = true, disabled_reason = 'bounce rate too high' WHERE id = $1",
      [own.project.id],
    )
    const send = await server.app.inject({ method: 'POST', url: '/scope/send', headers: bearer(own.secretKey) })
    expect(send.statusCode).toBe(403)
    expect(send.json().error).toMatchObject({
      code: 'PROJECT_DISABLED',
      message: 'Sending is disabled for this project: bounce rate too high',
    })
    expect((await call('/scope/secret', bearer(own.secretKey))).statusCode).toBe(200)
  })
})

describe('dashboard session with X-Project-Id', () => {
  it("a member's session with X-Project-Id reaches project routes", async () => {
    const response = await call('/scope/project', { cookie: account.cookie, 'x-project-id': account.project.id })
    expect(response.json()).toEqual({ projectId: account.project.id })
  })

  it("a session naming someone else's project gets 404, and a session is not a key for /v1-style routes", async () => {
    const stranger = await createAccount(server)
    const foreign = await call('/scope/project', { cookie: stranger.cookie, 'x-project-id': account.project.id })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json().error.code).toBe('NOT_FOUND')
    const notUuid = await call('/scope/project', { cookie: stranger.cookie, 'x-project-id': 'abc' })
    expect(notUuid.statusCode).toBe(404)
    const missingHeader = await call('/scope/project', { cookie: stranger.cookie })
    expect(missingHeader.statusCode).toBe(400)
    const secretOnly = await call('/scope/secret', { cookie: account.cookie, 'x-project-id': account.project.id })
    expect(secretOnly.statusCode).toBe(401)
  })

  it("another project's key never resolves to this project", async () => {
    const other = await createAccount(server)
    const response = await call('/scope/project', { ...bearer(other.secretKey), 'x-project-id': account.project.id })
    expect(response.json()).toEqual({ projectId: other.project.id })
  })
})

describe('routes', () => {
  it('a route that declares no auth scope cannot be registered', async () => {
    await expect(
      startTestServer({ worker: false, routes: (app) => app.get('/open', async () => ({})) }),
    ).rejects.toThrow('Route GET /open declares no auth scope')
  })

  it('a sending route must name a project scope, so the disabled check has a project to read', async () => {
    await expect(
      startTestServer({
        worker: false,
        routes: (app) => app.post('/mail', { config: { auth: 'user', sending: true } }, async () => ({})),
      }),
    ).rejects.toThrow('Route POST /mail is a sending route: declare the secret, track or project scope')
  })
})
