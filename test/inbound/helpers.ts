import type { TestServer } from '../helpers/server.js'

export type StoredEvent = { project_id: string; contact_id: string | null; name: string; data: Record<string, unknown> }

/** Events of one name, oldest first, across every project: tests check who got them. */
export async function eventsNamed(server: TestServer, name: string): Promise<StoredEvent[]> {
  const { rows } = await server.ctx.pool.query<StoredEvent>(
    'SELECT project_id, contact_id, name, data FROM events WHERE name = $1 ORDER BY created_at, id',
    [name],
  )
  return rows
}

export async function contactOf(server: TestServer, projectId: string, email: string) {
  const { rows } = await server.ctx.pool.query<{ id: string; subscribed: boolean }>(
    'SELECT id, subscribed FROM contacts WHERE project_id = $1 AND email = $2',
    [projectId, email],
  )
  return rows[0]
}
