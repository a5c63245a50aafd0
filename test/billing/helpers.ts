import { sql } from 'drizzle-orm'
import type { Account } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'

export type Limits = { transactional: unknown; campaigns: unknown; workflows: unknown; inbound: unknown }

export const noLimits: Limits = { transactional: null, campaigns: null, workflows: null, inbound: null }

export function billingCall(server: TestServer, account: Account) {
  return (method: 'GET' | 'PUT' | 'POST', path: string, payload?: unknown, projectId = account.project.id) =>
    server.app.inject({
      method,
      url: `/users/@me/projects/${projectId}/${path}`,
      headers: { cookie: account.cookie },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    })
}

export async function setLimits(server: TestServer, account: Account, limits: Partial<Limits>): Promise<void> {
  const response = await billingCall(server, account)('PUT', 'billing-limits', { ...noLimits, ...limits })
  if (response.statusCode !== 200) throw new Error(`billing-limits failed: ${response.statusCode} ${response.body}`)
}

export async function usageOf(server: TestServer, projectId: string, category: string): Promise<number> {
  const result = await server.ctx.db.execute<{ used: number }>(sql`
    SELECT coalesce(sum(used), 0)::int AS used FROM billing_usage WHERE project_id = ${projectId} AND category = ${category}`)
  return result.rows[0]?.used ?? 0
}

export async function emailCount(server: TestServer, projectId: string): Promise<number> {
  const result = await server.ctx.db.execute<{ count: number }>(
    sql`SELECT count(*)::int AS count FROM emails WHERE project_id = ${projectId}`,
  )
  return result.rows[0]?.count ?? 0
}

export async function eventsNamed(server: TestServer, projectId: string, name: string) {
  const result = await server.ctx.db.execute<{ data: Record<string, unknown> }>(
    sql`SELECT data FROM events WHERE project_id = ${projectId} AND name = ${name}`,
  )
  return result.rows.map((row) => row.data)
}
