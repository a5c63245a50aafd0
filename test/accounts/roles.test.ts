import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projects } from '../../src/db/schema/index.js'
import { type MemberRole, memberRoles, type RouteAccess, roleAtLeast } from '../../src/http/auth.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { addMember, type Member } from '../helpers/members.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

/**
 * The role table of README, "Accounts, teams and roles". Every project route not listed here needs MEMBER; the test fails
 * when a route's declared role differs, and when a route that acts on a project declares none.
 */
const adminRoutes = [
  'POST /domains',
  'GET /domains/:id/verify',
  'GET /domains/:id/audit',
  'PUT /domains/:id/return-path',
  'DELETE /domains/:id',
  'POST /templates',
  'PATCH /templates/:id',
  'DELETE /templates/:id',
  'POST /templates/:id/duplicate',
  'DELETE /suppressions/:email',
  'DELETE /events/:eventName',
  'DELETE /contacts/fields/:field',
  'PATCH /users/@me/projects/:id',
  'POST /users/@me/projects/:id/regenerate-keys',
  'POST /users/@me/projects/:id/security/resume',
  'POST /projects/:id/members',
  'PATCH /projects/:id/members/:userId',
  'GET /projects/:id/invitations',
  'POST /projects/:id/invitations/:invitationId/resend',
  'DELETE /projects/:id/invitations/:invitationId',
  'PUT /users/@me/projects/:id/billing-limits',
  'POST /users/@me/projects/:id/checkout',
  'POST /users/@me/projects/:id/billing-portal',
  'DELETE /uploads/:id',
  'POST /webhooks',
  'PATCH /webhooks/:id',
  'DELETE /webhooks/:id',
  'POST /webhooks/:id/rotate-secret',
  'POST /webhooks/:id/messages/:messageId/retry',
  'POST /webhooks/:id/replay',
  'POST /webhooks/:id/test',
]
const ownerRoutes = ['DELETE /users/@me/projects/:id', 'POST /users/@me/projects/:id/reset']

let server: TestServer
let owner: Account
let callers: Record<MemberRole, Member | Account>

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  owner = await createAccount(server, 'Role table')
  callers = {
    OWNER: owner,
    ADMIN: await addMember(server, owner, 'ADMIN'),
    MEMBER: await addMember(server, owner, 'MEMBER'),
  }
})
afterAll(() => server.close())

function roleRoutes(): RouteAccess[] {
  return server.app.routeAccess.filter((route) => route.role !== undefined)
}

/** A concrete URL: the project's id where the path names the project, a fresh id (or name) for anything else. */
function concreteUrl(route: RouteAccess): string {
  return route.url.replace(/:(\w+)/g, (_match, name: string) => {
    if (name === route.projectParam || name === 'projectId') return owner.project.id
    if (name === 'email') return 'someone%40example.org'
    if (name === 'eventName' || name === 'field') return 'something'
    return randomUUID()
  })
}

/**
 * Calls a route as a caller. Bodies are malformed JSON: an allowed call stops at the body parser, so no
 * handler that changes anything runs, while a refused one shows the role check comes first.
 */
function callRoute(route: RouteAccess, headers: Record<string, string>) {
  const hasBody = route.method !== 'GET'
  return server.app.inject({
    method: route.method as 'GET',
    url: concreteUrl(route),
    headers: {
      ...headers,
      'x-project-id': owner.project.id,
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
    },
    ...(hasBody ? { payload: '{' } : {}),
  })
}

describe('role table', () => {
  it('every route that acts on a project declares a role, as documented', () => {
    const declared = Object.fromEntries(roleRoutes().map((route) => [`${route.method} ${route.url}`, route.role]))
    for (const route of server.app.routeAccess) {
      if (route.auth === 'project' || /^\/(users\/@me\/)?projects\/:/.test(route.url)) {
        expect(route.role, `${route.method} ${route.url}`).toBeDefined()
      }
    }
    for (const key of adminRoutes) expect(declared[key], key).toBe('ADMIN')
    for (const key of ownerRoutes) expect(declared[key], key).toBe('OWNER')
    const others = Object.entries(declared).filter(([key]) => !adminRoutes.includes(key) && !ownerRoutes.includes(key))
    expect(others.length).toBeGreaterThan(50)
    for (const [key, role] of others) expect(role, key).toBe('MEMBER')
  })

  it('refuses every route to a session caller below its role, before anything else runs', async () => {
    let refused = 0
    for (const route of roleRoutes()) {
      for (const role of memberRoles) {
        const required = route.role ?? 'MEMBER'
        if (roleAtLeast(role, required)) continue
        const response = await callRoute(route, { cookie: callers[role].cookie })
        const where = `${role} on ${route.method} ${route.url}`
        expect(response.statusCode, where).toBe(403)
        expect(response.json().error, where).toMatchObject({
          code: 'FORBIDDEN',
          details: { requiredRole: required, role },
        })
        refused++
      }
    }
    expect(refused).toBeGreaterThan(15)
  })

  it('lets every role at or above the declared one through the role check', async () => {
    for (const route of roleRoutes()) {
      for (const role of memberRoles) {
        if (!roleAtLeast(role, route.role ?? 'MEMBER')) continue
        const response = await callRoute(route, { cookie: callers[role].cookie })
        const where = `${role} on ${route.method} ${route.url}: ${response.body}`
        expect([401, 403], where).not.toContain(response.statusCode)
        expect(response.statusCode, where).toBeLessThan(500)
      }
    }
    const [project] = await server.ctx.db.select().from(projects).where(eq(projects.id, owner.project.id))
    expect(project?.name).toBe('Role table')
  })

  it('a secret key passes every role on the routes that take keys', async () => {
    for (const route of roleRoutes().filter((candidate) => candidate.auth === 'project')) {
      const response = await callRoute(route, bearer(owner.secretKey))
      const where = `key on ${route.method} ${route.url}: ${response.body}`
      expect([401, 403], where).not.toContain(response.statusCode)
      expect(response.statusCode, where).toBeLessThan(500)
    }
  })

  it('a member or admin cannot escalate through project settings, keys or deletion: nothing changes', async () => {
    const before = await server.ctx.db.select().from(projects).where(eq(projects.id, owner.project.id))
    const base = `/users/@me/projects/${owner.project.id}`
    const attempts: [MemberRole, 'PATCH' | 'POST' | 'DELETE', string, object | undefined][] = [
      ['MEMBER', 'PATCH', base, { name: 'Taken over' }],
      ['MEMBER', 'POST', `${base}/regenerate-keys`, undefined],
      ['ADMIN', 'DELETE', base, undefined],
      ['MEMBER', 'DELETE', base, undefined],
    ]
    for (const [role, method, url, payload] of attempts) {
      const response = await server.app.inject({
        method,
        url,
        headers: { cookie: callers[role].cookie },
        ...(payload ? { payload } : {}),
      })
      expect(response.statusCode).toBe(403)
      expect(response.json().error.code).toBe('FORBIDDEN')
    }
    expect(await server.ctx.db.select().from(projects).where(eq(projects.id, owner.project.id))).toEqual(before)
  })
})
