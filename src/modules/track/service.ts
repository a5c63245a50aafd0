import { batcherPer, settleEach } from '../../db/batcher.js'
import type { Database, Executor } from '../../db/client.js'
import { isReservedEventName } from '../../events/names.js'
import { normalizeEmail } from '../../mail/address.js'
import { eventDataFrom } from '../contacts/data-rules.js'
import { upsertContact, upsertContacts } from '../contacts/service.js'
import { reservedEventError } from '../event-log/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import type { TrackBody } from './schemas.js'

export type TrackResult = { contact: string; event: string; timestamp: Date }
type TrackItem = { projectId: string; input: TrackBody }

function trackUpsert(executor: Executor, { projectId, input }: TrackItem) {
  return upsertContact(
    executor,
    projectId,
    { email: input.email, subscribed: input.subscribed, data: input.data },
    { subscribedIfNew: true, events: [{ name: input.event, data: eventDataFrom(input.data) }] },
  )
}

function resultOf(upserted: { contact: { id: string }; events: { id: string; createdAt: Date }[] }): TrackResult {
  const [event] = upserted.events
  if (!event) throw new Error('tracked event was not published')
  return { contact: upserted.contact.id, event: event.id, timestamp: event.createdAt }
}

/**
 * Group commit: concurrent tracks share one multi-row upsert-and-publish statement, which is its own
 * transaction, so every caller answers after its event is durable. If the statement fails (e.g. one bad row),
 * each item is retried alone so only its own request fails.
 */
async function trackMany(db: Database, items: TrackItem[]) {
  try {
    const upserted = await upsertContacts(
      db,
      items.map(({ projectId, input }) => ({
        projectId,
        email: input.email,
        data: input.data,
        subscribedIfNew: true,
        event: { name: input.event, data: eventDataFrom(input.data) },
      })),
    )
    return upserted.map((result) => ({ ok: true as const, value: resultOf(result) }))
  } catch {
    return settleEach(items, async (item) => resultOf(await trackUpsert(db, item)))
  }
}

const batcherOf = batcherPer((db: Database) => ({
  maxSize: 128,
  maxInFlight: 3,
  run: (items: TrackItem[]) => trackMany(db, items),
  keyOf: (item: TrackItem) => `${item.projectId} ${normalizeEmail(item.input.email)}`,
}))

/**
 * /v1/track and its dashboard alias: the contact upsert and the event insert are one statement, so the event
 * is durable, and on its way to the bus, before the answer. The common call joins a group commit; an
 * Idempotency-Key (its claim needs a transaction) or an explicit `subscribed` (which may flip the subscription
 * and publish that) takes the single-request path.
 */
export async function trackEvent(
  db: Database,
  projectId: string,
  input: TrackBody,
  claim?: IdempotencyClaim,
): Promise<TrackResult> {
  if (isReservedEventName(input.event)) throw reservedEventError(input.event)
  const item = { projectId, input }
  if (claim) {
    return resultOf(
      await db.transaction(async (tx) => {
        await claimIdempotencyKey(tx, projectId, claim)
        return trackUpsert(tx, item)
      }),
    )
  }
  if (input.subscribed !== undefined) return resultOf(await trackUpsert(db, item))
  return batcherOf(db)(item)
}
