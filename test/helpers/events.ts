import { sql } from 'drizzle-orm'
import { expect } from 'vitest'
import { type EventInput, publishEvents } from '../../src/events/bus.js'
import { wakeEventDispatcher } from '../../src/events/wake.js'
import { eventually } from './emails.js'
import { waitOnLoops } from './loops.js'
import type { TestServer } from './server.js'

/** Publishes events as the modules that emit them do: inside a transaction, waking the bus once it commits. */
export async function publish(server: TestServer, inputs: EventInput[]) {
  const published = await server.ctx.db.transaction((tx) => publishEvents(tx, inputs))
  wakeEventDispatcher(server.ctx.pool)
  return published
}

/** Events (of one project, or all) the bus has not handed out yet: after the consumer's position. */
export async function undispatchedEvents(server: TestServer, projectId?: string): Promise<number> {
  const pending = await server.ctx.db.execute<{ pending: number }>(sql`
    SELECT count(*)::int AS pending FROM events, event_bus_positions AS position
    WHERE (events.tx_id, events.id) > (position.tx_id, position.event_id)
      ${projectId ? sql`AND events.project_id = ${projectId}` : sql``}`)
  return pending.rows[0]?.pending ?? 0
}

/**
 * Waits until the dispatcher has handed out every event of the project, checked after each run of a loop. The
 * rollups are written in the same transaction as the dispatcher's position, so after this the analytics see
 * every event.
 */
export async function waitForDispatch(server: TestServer, projectId?: string): Promise<void> {
  await waitOnLoops(async () => expect(await undispatchedEvents(server, projectId)).toBe(0), eventually.timeout)
}

/**
 * What the event bus waits on, for a timeout's message: its position, the events past it and the snapshot it
 * would read them under, and every transaction open on the server (any one of them could hold events back).
 */
export async function eventBusState(server: TestServer): Promise<string> {
  const bus = await server.ctx.db.execute(sql`
    SELECT current_database() AS database, p.tx_id, p.event_id, pg_current_snapshot() AS snapshot,
      (SELECT count(*)::int FROM events WHERE (tx_id, id) > (p.tx_id, p.event_id)) AS past_position
    FROM event_bus_positions AS p`)
  const open = await server.ctx.db.execute(sql`
    SELECT datname, pid, state, backend_xid, backend_xmin, round(extract(epoch FROM now() - xact_start)) AS open_seconds,
      left(query, 80) AS query
    FROM pg_stat_activity WHERE (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL) AND pid <> pg_backend_pid()
    ORDER BY xact_start`)
  return JSON.stringify({ bus: bus.rows, openTransactions: open.rows }, null, 1)
}

/** The email events of one sent email, with the spec's base fields. */
export function emailEvent(
  projectId: string,
  contactId: string,
  emailId: string,
  name: string,
  extra: Record<string, unknown> = {},
  campaignId: string | null = null,
): EventInput {
  return {
    projectId,
    contactId,
    name,
    data: {
      subject: 'Hello',
      from: 'hello@analytics.example.com',
      fromName: '',
      messageId: `${emailId}@analytics.example.com`,
      emailId,
      templateId: null,
      campaignId,
      sourceType: campaignId ? 'CAMPAIGN' : 'TRANSACTIONAL',
      ...extra,
    },
  }
}
