import type { Database, Executor } from '../../db/client.js'
import { eventDataFrom } from '../contacts/data-rules.js'
import { upsertContact } from '../contacts/service.js'
import { isReservedEventName } from '../events/names.js'
import { reservedEventError } from '../events/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import type { TrackBody } from './schemas.js'

/**
 * /v1/track and its dashboard alias. The contact upsert and the event insert are one statement, so the event
 * is durable, and on its way to the bus, before the answer; an Idempotency-Key adds its claim in a transaction.
 */
export async function trackEvent(
  db: Database,
  projectId: string,
  input: TrackBody,
  claim?: IdempotencyClaim,
): Promise<{ contact: string; event: string; timestamp: Date }> {
  if (isReservedEventName(input.event)) throw reservedEventError(input.event)
  const upsert = (executor: Executor) =>
    upsertContact(
      executor,
      projectId,
      { email: input.email, subscribed: input.subscribed, data: input.data },
      { subscribedIfNew: true, events: [{ name: input.event, data: eventDataFrom(input.data) }] },
    )
  const result = claim
    ? await db.transaction(async (tx) => {
        await claimIdempotencyKey(tx, projectId, claim)
        return upsert(tx)
      })
    : await upsert(db)
  const [event] = result.events
  if (!event) throw new Error('tracked event was not published')
  return { contact: result.contact.id, event: event.id, timestamp: event.createdAt }
}
