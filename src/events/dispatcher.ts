import { defineLoop } from '../jobs/loop.js'
import { anyEventPending, dispatchBatchSize, dispatchPendingEvents, isolatingFailedEvents } from './bus.js'
import { dispatcherLoopName } from './wake.js'

/** Runs in worker processes; several of them share the outbox safely (SKIP LOCKED). */
export const dispatchEventsLoop = defineLoop({
  name: dispatcherLoopName,
  idleMs: 200,
  // Woken after every commit that publishes events: under a steady load (one wake per request) the bus still
  // hands out batches, at most 20 a second, as the comment on `run` wants; an idle bus answers a wake at once.
  wakeGapMs: 50,
  errorBackoffMs: 2_000,
  hasWork: anyEventPending,
  // Events committed behind a transaction of this database still open are handed out once it ends; a wake that came
  // before then would otherwise wait for the next poll.
  heldMs: 50,
  // Straight on after a full batch, or while a failed batch is retried event by event. A partial batch means
  // the bus has caught up: the pause lets the next batch gather what arrives meanwhile. Going straight on cost a
  // transaction of ~10 statements per handful of events under a steady load (a campaign's sends, 100 req/s),
  // and an event waits no longer than it does when the bus is idle.
  run: async (ctx) => {
    const handed = await dispatchPendingEvents(ctx)
    return handed === dispatchBatchSize || (handed > 0 && isolatingFailedEvents(ctx))
  },
})
