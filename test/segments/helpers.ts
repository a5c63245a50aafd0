import { and, eq, like, sql } from 'drizzle-orm'
import { expect } from 'vitest'
import { events, segmentMemberships, segments } from '../../src/db/schema/index.js'
import type { Segment } from '../../src/modules/segments/service.js'
import { type Account, callAs } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'

export type SegmentJson = Omit<Segment, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string }

/** `data.<key> equals <value>`: the simplest dynamic condition. */
export function dataEquals(key: string, value: unknown) {
  return { logic: 'AND', groups: [{ filters: [{ field: `data.${key}`, operator: 'equals', value }] }] }
}

export async function createSegment(server: TestServer, account: Account, body: Record<string, unknown>) {
  const response = await callAs(server, account)('POST', '/segments', body)
  expect(response.statusCode, response.body).toBe(201)
  return response.json<SegmentJson>()
}

export async function storedSegment(server: TestServer, id: string) {
  const [row] = await server.ctx.db.select().from(segments).where(eq(segments.id, id))
  return row
}

/** Active member contact ids of a segment, sorted. */
export async function activeMembers(server: TestServer, segmentId: string): Promise<string[]> {
  const rows = await server.ctx.db
    .select({ contactId: segmentMemberships.contactId })
    .from(segmentMemberships)
    .where(and(eq(segmentMemberships.segmentId, segmentId), sql`${segmentMemberships.exitedAt} IS NULL`))
  return rows.map((row) => row.contactId).sort()
}

/** The project's `segment.*` events as `{name, contactId, data}`, sorted by name then contact. */
export async function segmentEvents(server: TestServer, projectId: string) {
  const rows = await server.ctx.db
    .select({ name: events.name, contactId: events.contactId, data: events.data })
    .from(events)
    .where(and(eq(events.projectId, projectId), like(events.name, 'segment.%')))
  return rows.sort((a, b) => `${a.name} ${a.contactId}`.localeCompare(`${b.name} ${b.contactId}`))
}
