import type { InjectOptions } from 'fastify'
import { expect, it } from 'vitest'
import { type Account, bearer, createAccount, type Method } from './factories.js'
import type { TestServer } from './server.js'

/** The whole 401 body a request without a usable secret key gets. */
export const invalidApiKeyBody = {
  success: false,
  error: {
    code: 'INVALID_API_KEY',
    message: expect.any(String),
    statusCode: 401,
    requestId: expect.any(String),
    suggestion: expect.any(String),
  },
  timestamp: expect.any(String),
}

/** Without a key, and with the project's public key, the request is refused with 401 INVALID_API_KEY. */
export async function expectSecretKeyRequired(server: TestServer, account: Account, request: InjectOptions) {
  for (const headers of [{}, bearer(account.publicKey)]) {
    const response = await server.app.inject({ ...request, headers: { ...request.headers, ...headers } })
    expect(response.statusCode, `${request.method} ${request.url} ${JSON.stringify(headers)}`).toBe(401)
    expect(response.json()).toEqual(invalidApiKeyBody)
  }
}

/** The whole 404 body for a resource of another project (or none): the same either way. */
export function notFoundBody(resource: string) {
  return {
    success: false,
    error: { code: 'NOT_FOUND', message: `${resource} not found`, statusCode: 404, requestId: expect.any(String) },
    timestamp: expect.any(String),
  }
}

export type ScopedRoute = readonly [method: Method, url: string, payload?: object]

/** One test per route: `expectSecretKeyRequired` with a fresh account. `server` is a getter (files start theirs in beforeAll). */
export function itRequiresTheSecretKey(server: () => TestServer, routes: readonly ScopedRoute[]): void {
  for (const [method, url, payload] of routes) {
    it(`${method} ${url} needs the secret key: none or a public key gets 401`, async () => {
      const account = await createAccount(server())
      await expectSecretKeyRequired(server(), account, { method, url, ...(payload ? { payload } : {}) })
    })
  }
}
