import type { Database } from '../../db/client.js'
import { eventDataFrom } from '../contacts/data-rules.js'
import { upsertContact } from '../contacts/service.js'
import { publishEvents } from '../events/bus.js'
import { isReservedEventName } from '../events/names.js'
import { reservedEventError } from '../events/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import type { TrackBody } from './schemas.js'

/**
 * /v1/track and its dashboard alias: one transaction of (idempotency claim,) contact upsert and event insert,
 * so the event is durable, and on its way to the bus, before the answer.
 */
export async function trackEvent(
  db: Database,
  projectId: string,
  input: TrackBody,
  claim?: IdempotencyClaim,
): Promise<{ contact: string; event: string; timestamp: Date }> {
  if (isReservedEventName(input.event)) throw reservedEventError(input.event)
  return db.transaction(async (tx) => {
    if (claim) await claimIdempotencyKey(tx, projectId, claim)
    const { contact } = await upsertContact(
      tx,
      projectId,
      { email: input.email, subscribed: input.subscribed, data: input.data },
      { subscribedIfNew: true },
    )
    const [event] = await publishEvents(tx, [
      { projectId, contactId: contact.id, name: input.event, data: eventDataFrom(input.data) },
    ])
    if (!event) throw new Error('event insert returned nothing')
    return { contact: contact.id, event: event.id, timestamp: event.createdAt }
  })
}
