import { expect } from 'vitest'
import { type Account, sessionCookie, uniqueEmail } from './factories.js'
import type { TestServer } from './server.js'

export type Member = { userId: string; email: string; password: string; cookie: string }

/** A new user (with a session and no project of their own) added to the account's project with a role. */
export async function addMember(
  server: TestServer,
  owner: Account,
  role: 'OWNER' | 'ADMIN' | 'MEMBER',
): Promise<Member> {
  const email = uniqueEmail(role.toLowerCase())
  const password = 'a member password'
  const signup = await server.app.inject({ method: 'POST', url: '/auth/signup', payload: { email, password } })
  expect(signup.statusCode).toBe(201)
  const invited = await server.app.inject({
    method: 'POST',
    url: `/projects/${owner.project.id}/members`,
    headers: { cookie: owner.cookie },
    payload: { email, role },
  })
  expect(invited.statusCode).toBe(200)
  return { userId: signup.json().id, email, password, cookie: sessionCookie(signup.headers['set-cookie']) }
}
