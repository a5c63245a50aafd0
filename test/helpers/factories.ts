import { randomBytes } from 'node:crypto'
import type { ProjectView } from '../../src/modules/projects/schemas.js'
import type { TestServer } from './server.js'

export type Account = {
  userId: string
  email: string
  password: string
  /** `Cookie` header value carrying the session. */
  cookie: string
  project: ProjectView
  publicKey: string
  secretKey: string
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}@example.com`
}

export function sessionCookie(setCookie: string | string[] | undefined): string {
  const header = Array.isArray(setCookie) ? setCookie[0] : setCookie
  const pair = header?.split(';')[0]
  if (!pair) throw new Error('response set no cookie')
  return pair
}

/** A new user with a session and one project of their own, so tests never share state. */
export async function createAccount(server: TestServer, projectName = 'Test project'): Promise<Account> {
  const email = uniqueEmail()
  const password = 'correct horse battery'
  const signup = await server.app.inject({ method: 'POST', url: '/auth/signup', payload: { email, password } })
  if (signup.statusCode !== 201) throw new Error(`signup failed: ${signup.statusCode} ${signup.body}`)
  const cookie = sessionCookie(signup.headers['set-cookie'])
  const created = await server.app.inject({
    method: 'POST',
    url: '/users/@me/projects',
    headers: { cookie },
    payload: { name: projectName },
  })
  if (created.statusCode !== 201) throw new Error(`project create failed: ${created.statusCode} ${created.body}`)
  const project = created.json<ProjectView>()
  return {
    userId: signup.json<{ id: string }>().id,
    email,
    password,
    cookie,
    project,
    publicKey: project.public,
    secretKey: project.secret,
  }
}

export function bearer(key: string): { authorization: string } {
  return { authorization: `Bearer ${key}` }
}

export type ContactJson = {
  id: string
  email: string
  subscribed: boolean
  snoozedUntil: string | null
  data: Record<string, unknown>
  createdAt: string
  updatedAt: string
}

/** A contact of the account's project through POST /contacts. */
export async function createContact(
  server: TestServer,
  account: Account,
  overrides: { email?: string; subscribed?: boolean; data?: Record<string, unknown> } = {},
): Promise<ContactJson> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/contacts',
    headers: bearer(account.secretKey),
    payload: { email: uniqueEmail('contact'), ...overrides },
  })
  if (response.statusCode !== 201) throw new Error(`contact create failed: ${response.statusCode} ${response.body}`)
  const { _meta, ...contact } = response.json<ContactJson & { _meta: unknown }>()
  return contact
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'

/** Calls the API with the account's secret key. */
export function callAs(server: TestServer, account: Account) {
  return (method: Method, url: string, payload?: object) =>
    server.app.inject({ method, url, headers: bearer(account.secretKey), ...(payload ? { payload } : {}) })
}
