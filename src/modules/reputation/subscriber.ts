import type { EventSubscriber } from '../../events/bus.js'
import { enforceThresholds } from './guard.js'
import { addToRollup, countReputationEvents, reputationKind } from './rollup.js'
import { marketingEventIds } from './streams.js'

/**
 * Keeps the hourly rollup, per stream, and evaluates the guard for every project that just got a bounce or
 * complaint. It runs in the dispatcher's transaction, so each event is counted exactly once and a pause commits
 * with the events that caused it, within a dispatch cycle of the provider's notification.
 */
export const reputationSubscriber: EventSubscriber = async (events, { ctx, tx }) => {
  if (!events.some((event) => reputationKind(event) !== undefined)) return
  const marketing = await marketingEventIds(tx, events)
  const deltas = countReputationEvents(events, (event) => marketing.has(event.id))
  await addToRollup(tx, deltas)
  const affected = new Set(deltas.filter((delta) => delta.bounces + delta.complaints > 0).map((d) => d.projectId))
  await enforceThresholds(tx, ctx.log, ctx.config.reputation, [...affected])
}
