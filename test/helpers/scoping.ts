import { expect, it } from 'vitest'
import { bearer, createAccount, type Method } from './factories.js'
import type { TestServer } from './server.js'

export type ScopedRoute = readonly [method: Method, url: string, payload?: object]

/**
 * The shared key-scope guarantee of dashboard-style routes: no key, an unknown key or a public key gets
 * 401 INVALID_API_KEY, before any validation or lookup. `server` is a getter because files start theirs
 * in beforeAll.
 */
export function itRequiresTheSecretKey(server: () => TestServer, routes: readonly ScopedRoute[]): void {
  for (const [method, url, payload] of routes) {
    it(`${method} ${url} needs the secret key: none, an unknown or a public key gets 401`, async () => {
      const account = await createAccount(server())
      for (const headers of [{}, bearer(`sk_${'0'.repeat(64)}`), bearer(account.publicKey)]) {
        const response = await server().app.inject({ method, url, headers, ...(payload ? { payload } : {}) })
        expect(response.statusCode).toBe(401)
        expect(response.json().error.code).toBe('INVALID_API_KEY')
      }
    })
  }
}
