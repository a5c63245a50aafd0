import { defineLoop } from '../../jobs/loop.js'
import { anyEventPending, dispatchBatchSize, dispatchPendingEvents, isolatingFailedEvents } from './bus.js'

/** Runs in worker processes; several of them share the outbox safely (SKIP LOCKED). */
export const dispatchEventsLoop = defineLoop({
  name: 'events-dispatch',
  idleMs: 200,
  errorBackoffMs: 2_000,
  hasWork: (ctx) => anyEventPending(ctx.db),
  // Straight on after a full batch, or while a failed batch is retried event by event. A partial batch means
  // the bus has caught up: the pause lets the next batch gather what arrives meanwhile. Going straight on cost a
  // transaction of ~10 statements per handful of events under a steady load (a campaign's sends, 100 req/s),
  // and an event waits no longer than it does when the bus is idle.
  run: async (ctx) => {
    const handed = await dispatchPendingEvents(ctx)
    return handed === dispatchBatchSize || (handed > 0 && isolatingFailedEvents(ctx))
  },
})
