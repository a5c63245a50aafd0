import { sql } from 'drizzle-orm'
import type { EventSubscriber } from '../../events/bus.js'
import { countEvents } from './rollup-sql.js'

/**
 * Keeps the analytics rollups. It writes through the dispatcher's transaction, so the counts commit together
 * with the bus position moving past the batch: each event is counted exactly once, and a batch that is rolled
 * back (another subscriber failed) is counted when it is dispatched again.
 */
export const countDispatchedEvents: EventSubscriber = async (events, { tx }) => {
  await tx.execute(countEvents(sql`e.id = ANY(${sql.param(events.map((event) => event.id))}::uuid[])`))
}
