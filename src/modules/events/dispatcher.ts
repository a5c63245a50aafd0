import { defineLoop } from '../../jobs/loop.js'
import { dispatchPendingEvents } from './bus.js'

/** Runs in worker processes; several of them share the outbox safely (SKIP LOCKED). */
export const dispatchEventsLoop = defineLoop({
  name: 'events-dispatch',
  idleMs: 200,
  errorBackoffMs: 2_000,
  // Straight on while there is anything to hand out; an empty claim means idle.
  run: async (ctx) => (await dispatchPendingEvents(ctx)) > 0,
})
