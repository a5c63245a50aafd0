import { type SQL, sql } from 'drizzle-orm'
import type { AppContext } from '../context.js'
import type { Executor, Transaction } from '../db/client.js'
import { insertEvents, newEventId } from './rows.js'

/**
 * The in-app event bus.
 *
 * `publishEvents` writes event rows in the caller's transaction, so an event exists exactly when the request
 * that caused it commits. The `events` table doubles as the outbox, and is never updated for it: the
 * dispatcher (a loop in worker processes, `dispatchPendingEvents`) reads committed rows in batches after a
 * stored position, hands each batch to every subscriber inside one transaction, and moves the position in that
 * transaction. Delivery is at least once: a subscriber that throws rolls the batch back and it is retried.
 * Subscribers that write through the given `tx` get their writes committed atomically with the position.
 *
 * Why the event rows themselves rather than a pg-boss job per event: enqueueing costs another insert (and
 * index updates on pg-boss's job table) on every /v1/track, which must stay at one short transaction for the
 * 3,000 req/s bar; the outbox costs nothing extra on the request path and batches naturally for the consumer.
 */
export type EventInput = {
  projectId: string
  contactId: string | null
  name: string
  data?: Record<string, unknown>
}

export type PublishedEvent = { id: string; createdAt: Date }

export type BusEvent = {
  id: string
  projectId: string
  contactId: string | null
  name: string
  data: Record<string, unknown>
  createdAt: Date
}

type SubscriberScope = {
  ctx: AppContext
  tx: Transaction
  /** Runs `effect` once the batch's transaction has committed (not if it rolls back), e.g. to wake a loop. */
  afterCommit(effect: () => void): void
}

export type EventSubscriber = (events: BusEvent[], scope: SubscriberScope) => Promise<void>

const subscribers = new Set<EventSubscriber>()

/** Registers a handler for every committed event, in batches; returns a function that removes it. */
export function subscribeToEvents(subscriber: EventSubscriber): () => void {
  subscribers.add(subscriber)
  return () => void subscribers.delete(subscriber)
}

/** Inserts the events in one statement inside the caller's transaction; results in input order. */
export async function publishEvents(db: Executor, inputs: readonly EventInput[]): Promise<PublishedEvent[]> {
  if (inputs.length === 0) return []
  // Ids are made here so results map back to inputs without relying on RETURNING order.
  const rows = inputs.map((input) => ({
    id: newEventId(),
    project_id: input.projectId,
    contact_id: input.contactId,
    name: input.name,
    data: input.data ?? {},
  }))
  const source = sql`SELECT id, project_id, contact_id, name, data
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS input(id uuid, project_id uuid, contact_id uuid, name text, data jsonb)`
  const result = await db.execute<{ id: string; created_at: string }>(
    sql`${insertEvents(source)} RETURNING id, created_at`,
  )
  const createdAt = new Map(result.rows.map((row) => [row.id, new Date(row.created_at)]))
  return rows.map((row) => ({ id: row.id, createdAt: createdAt.get(row.id) ?? new Date() }))
}

export const dispatchBatchSize = 500

type EventRow = {
  id: string
  project_id: string
  contact_id: string | null
  name: string
  data: Record<string, unknown>
  created_at: Date
  tx_id: string
}

/**
 * Failed deliveries per event, counted per context (one database) in this process. After a failure the
 * dispatcher goes one event at a time, so a single event its subscribers keep rejecting (a poison event) is
 * isolated, and after `maxDeliveryAttempts` it is logged and passed over undelivered instead of blocking the
 * bus for good.
 */
const failedDeliveriesByContext = new WeakMap<AppContext, Map<string, number>>()

function failedDeliveriesOf(ctx: AppContext): Map<string, number> {
  let failed = failedDeliveriesByContext.get(ctx)
  if (!failed) {
    failed = new Map()
    failedDeliveriesByContext.set(ctx, failed)
  }
  return failed
}
export const maxDeliveryAttempts = 5

/** Whether the dispatcher is going one event at a time, after a failed batch (see `failedDeliveriesByContext`). */
export function isolatingFailedEvents(ctx: AppContext): boolean {
  return failedDeliveriesOf(ctx).size > 0
}

/** The one consumer of the bus today: every subscriber, in one transaction per batch. */
const consumer = 'subscribers'

/**
 * Running transactions known to belong to other databases on the server, per context (one database) in this
 * process: they can never write our events, so the line below ignores them (see `eventsHorizon`). An xid is never
 * reused while it runs and a backend never changes database, so an entry stays true for good; the set is replaced
 * at each look, which drops the ones that have ended.
 */
type HorizonState = { foreign: string[]; lastBlocker: string | null }
const horizonByContext = new WeakMap<AppContext, HorizonState>()

function horizonOf(ctx: AppContext): HorizonState {
  let state = horizonByContext.get(ctx)
  if (!state) {
    state = { foreign: [], lastBlocker: null }
    horizonByContext.set(ctx, state)
  }
  return state
}

/**
 * The line below which no transaction can still commit events: the oldest transaction the statement's snapshot
 * saw running, leaving out those known to be another database's, else the snapshot's xmax. Not simply the
 * snapshot's xmin, the oldest running on the whole server: one long transaction in an unrelated database (a
 * forgotten psql session, another application's batch, a CREATE DATABASE) then held every event back for as long as
 * it ran. Which transactions are foreign is looked up only when one has held the line for two looks in a row
 * (`lookForForeignBlocker`): reading pg_stat_activity in every statement cost the bus a fifth of its CPU per event.
 */
const eventsHorizon = (ctx: AppContext) => sql`(
  SELECT coalesce(min(running.xid), pg_snapshot_xmax(pg_current_snapshot()))
  FROM pg_snapshot_xip(pg_current_snapshot()) AS running(xid)
  WHERE running.xid <> ALL(${`{${horizonOf(ctx).foreign.join(',')}}`}::xid8[]))`

/** The events past a position that the dispatcher may hand out: see `dispatchPendingEvents`. */
const pendingAfter = (ctx: AppContext, txId: SQL, eventId: SQL) =>
  sql`(tx_id, id) > (${txId}, ${eventId}) AND tx_id < ${eventsHorizon(ctx)}`

/**
 * Learns which running transactions are other databases', once the same one has held the line on two looks.
 * Only xids in this statement's own snapshot are taken, and pg_stat_activity (cached per transaction, and this
 * statement is its own) is read after that snapshot: an xid in it was running before the read, so the backend the
 * view shows with it is the one that holds it, and its database is the transaction's. Returns whether it learnt any.
 */
async function lookForForeignBlocker(ctx: AppContext, blocker: string): Promise<boolean> {
  const state = horizonOf(ctx)
  const persisted = state.lastBlocker === blocker
  state.lastBlocker = blocker
  if (!persisted) return false
  const result = await ctx.db.execute<{ xid: string }>(sql`
    SELECT running.xid::text AS xid FROM pg_snapshot_xip(pg_current_snapshot()) AS running(xid)
    WHERE running.xid::xid IN (
      SELECT backend_xid FROM pg_stat_activity
      WHERE datid <> (SELECT oid FROM pg_database WHERE datname = current_database()) AND backend_xid IS NOT NULL)`)
  state.foreign = result.rows.map((row) => row.xid)
  return state.foreign.includes(blocker)
}

/**
 * Whether events wait past the position, in one statement without a transaction or locks (the loop's look):
 * `'held'` when the only ones are committed behind a transaction still open, which the bus may not hand out yet.
 */
export async function anyEventPending(ctx: AppContext): Promise<boolean | 'held'> {
  const result = await ctx.db.execute<{ ready: boolean; held: boolean; horizon: string }>(sql`
    SELECT EXISTS (SELECT 1 FROM events WHERE ${pendingAfter(ctx, sql`p.tx_id`, sql`p.event_id`)}) AS ready,
      EXISTS (SELECT 1 FROM events WHERE (tx_id, id) > (p.tx_id, p.event_id)) AS held,
      ${eventsHorizon(ctx)}::text AS horizon
    FROM event_bus_positions AS p
    WHERE p.consumer = ${consumer}`)
  const row = result.rows[0]
  if (row?.ready) return true
  if (!row?.held) return false
  return (await lookForForeignBlocker(ctx, row.horizon)) ? anyEventPending(ctx) : 'held'
}

/**
 * Hands the next batch of committed events to the subscribers and moves the position past it; returns how
 * many it handed out (0 also when another process is dispatching).
 *
 * Events are read in (tx_id, id) order, and only those of transactions older than every transaction of this
 * database still running (`eventsHorizon`): a transaction that is still open can commit events later, but only
 * with a tx_id above that line, so the position never skips one. Holding the position row's lock makes one
 * process dispatch at a time.
 */
export async function dispatchPendingEvents(ctx: AppContext, batchSize = dispatchBatchSize): Promise<number> {
  const failedDeliveries = failedDeliveriesOf(ctx)
  const size = failedDeliveries.size > 0 ? 1 : batchSize
  const afterCommit: (() => void)[] = []
  const handed = await ctx.db.transaction(async (tx) => {
    const position = await tx.execute<{ tx_id: string; event_id: string }>(sql`
      SELECT tx_id, event_id FROM event_bus_positions WHERE consumer = ${consumer} FOR UPDATE SKIP LOCKED`)
    const from = position.rows[0]
    if (!from) return 0
    const claimed = await tx.execute<EventRow>(sql`
      SELECT id, project_id, contact_id, name, data, created_at, tx_id FROM events
      WHERE ${pendingAfter(ctx, sql`${from.tx_id}::xid8`, sql`${from.event_id}::uuid`)}
      ORDER BY tx_id, id
      LIMIT ${size}`)
    const last = claimed.rows.at(-1)
    if (!last) {
      failedDeliveries.clear()
      return 0
    }
    const batch: BusEvent[] = claimed.rows.map((row) => ({
      id: row.id,
      projectId: row.project_id,
      contactId: row.contact_id,
      name: row.name,
      data: row.data,
      createdAt: new Date(row.created_at),
    }))
    const deliverable = batch.filter((event) => (failedDeliveries.get(event.id) ?? 0) < maxDeliveryAttempts)
    const dropped = batch.filter((event) => !deliverable.includes(event))
    if (dropped.length > 0) {
      ctx.log.error(
        { events: dropped.map(({ id, name }) => ({ id, name })) },
        'event subscribers kept failing; dropped',
      )
    }
    try {
      const scope = { ctx, tx, afterCommit: (effect: () => void) => void afterCommit.push(effect) }
      if (deliverable.length > 0) for (const subscriber of subscribers) await subscriber(deliverable, scope)
    } catch (err) {
      for (const event of deliverable) failedDeliveries.set(event.id, (failedDeliveries.get(event.id) ?? 0) + 1)
      throw err
    }
    for (const event of batch) failedDeliveries.delete(event.id)
    await tx.execute(sql`
      UPDATE event_bus_positions SET tx_id = ${last.tx_id}::xid8, event_id = ${last.id}::uuid
      WHERE consumer = ${consumer}`)
    return batch.length
  })
  for (const effect of afterCommit) effect()
  return handed
}
