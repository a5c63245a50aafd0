import { and, eq, inArray } from 'drizzle-orm'
import type { Database, Executor, Transaction } from '../../db/client.js'
import { contacts } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { type PublishedEvent, publishEvents } from '../../events/bus.js'
import { subscriptionEventName } from '../../events/names.js'
import { newEventId } from '../../events/rows.js'
import { normalizeEmail } from '../../mail/address.js'
import { emptyDataPatch, resolveContactData } from './data-rules.js'
import type { ContactCreate, ContactUpdate, ContactView } from './schemas.js'
import { toContactView, updateContactRow, upsertContactRow, upsertContactRows } from './sql.js'

export type ContactUpsertInput = {
  email: string
  /** Omitted: a new contact gets `subscribedIfNew`, an existing one keeps its subscription. */
  subscribed?: boolean
  /** Raw request `data`; the contact data rules are applied here. */
  data?: Record<string, unknown>
}

export type ContactUpsertOptions = {
  /** /v1/send: false; /v1/track and POST /contacts: true. */
  subscribedIfNew: boolean
  /** Events of this contact to publish with the upsert, in the same statement (e.g. the tracked event). */
  events?: readonly { name: string; data?: Record<string, unknown> }[]
}

export type ContactUpsertResult = {
  contact: ContactView
  isNew: boolean
  /** The subscription really flipped; `contact.subscribed` / `contact.unsubscribed` was published. */
  subscriptionChanged: boolean
  /** Stored data plus this request's non-persistent values: the variables of an email rendered now. */
  requestData: Record<string, unknown>
  /** The `events` of the options, in order. */
  events: PublishedEvent[]
}

/**
 * The one contact upsert (send, track, POST /contacts): race-free by the (project, email) unique constraint,
 * one statement that also publishes the given events and a real subscription flip. Atomic on its own; pass a
 * transaction to make it part of a larger unit of work.
 */
export async function upsertContact(
  db: Executor,
  projectId: string,
  input: ContactUpsertInput,
  options: ContactUpsertOptions,
): Promise<ContactUpsertResult> {
  const patch = resolveContactData(input.data)
  const events = (options.events ?? []).map((event) => ({ id: newEventId(), name: event.name, data: event.data ?? {} }))
  const row = await upsertContactRow(
    db,
    projectId,
    normalizeEmail(input.email),
    input.subscribed,
    options.subscribedIfNew,
    patch,
    events,
  )
  const contact = toContactView(row)
  const publishedAt = new Date(row.published_at)
  return {
    contact,
    isNew: row.inserted,
    subscriptionChanged: row.subscription_changed,
    requestData: { ...contact.data, ...patch.transient },
    events: events.map((event) => ({ id: event.id, createdAt: publishedAt })),
  }
}

/** One contact of `upsertContacts`: the input of `upsertContact` without an explicit subscription. */
export type BatchContactUpsert = {
  projectId: string
  email: string
  data?: Record<string, unknown>
  subscribedIfNew: boolean
  event?: { name: string; data?: Record<string, unknown> }
}

/**
 * `upsertContact` for many contacts in one statement (group commit of /v1/track and /v1/send), results in
 * input order. Requests with an explicit `subscribed` take `upsertContact`: only they can flip a subscription.
 * Each (project, email) at most once per call.
 */
export async function upsertContacts(
  db: Executor,
  inputs: readonly BatchContactUpsert[],
): Promise<ContactUpsertResult[]> {
  const prepared = inputs.map((input) => ({
    projectId: input.projectId,
    email: normalizeEmail(input.email),
    subscribedIfNew: input.subscribedIfNew,
    patch: resolveContactData(input.data),
    event: input.event && { id: newEventId(), name: input.event.name, data: input.event.data ?? {} },
  }))
  const rows = await upsertContactRows(db, prepared)
  return prepared.map((input, index) => {
    const row = rows[index]
    if (row?.ord !== index) throw new Error('batched contact upsert lost a row')
    const contact = toContactView(row)
    return {
      contact,
      isNew: row.inserted,
      subscriptionChanged: false,
      requestData: { ...contact.data, ...input.patch.transient },
      events: input.event ? [{ id: input.event.id, createdAt: new Date(row.published_at) }] : [],
    }
  })
}

export async function publishSubscriptionChange(
  tx: Executor,
  projectId: string,
  contactId: string,
  subscribed: boolean,
  data: Record<string, unknown> = {},
): Promise<void> {
  await publishEvents(tx, [{ projectId, contactId, name: subscriptionEventName(subscribed), data }])
}

/**
 * Sets one contact's subscription (e.g. unsubscribed by a permanent bounce or a complaint, with
 * `{reason}` as the event data). Publishes the event only when the value really changes.
 */
export async function setContactSubscription(
  tx: Executor,
  projectId: string,
  contactId: string,
  subscribed: boolean,
  eventData: Record<string, unknown> = {},
): Promise<ContactView> {
  const row = await updateContactRow(tx, projectId, contactId, { subscribed, patch: emptyDataPatch })
  if (!row) throw notFound('Contact')
  if (row.previous_subscribed !== row.subscribed) {
    await publishSubscriptionChange(tx, projectId, row.id, row.subscribed, eventData)
  }
  return toContactView(row)
}

/**
 * Re-evaluates written contacts against their projects' tracked segments, in the writer's transaction. The app's
 * wiring gives segments' `reevaluateContacts`: segments build on contacts, so contacts do not import them.
 */
export type SegmentReevaluation = (
  tx: Transaction,
  contactsByProject: ReadonlyMap<string, readonly string[]>,
) => Promise<void>

/**
 * POST /contacts. A contact created or changed here is re-evaluated against the project's tracked segments in
 * the same transaction: no event announces a change of data, and its entry or exit should not wait for the sweep.
 */
export async function createContact(
  db: Database,
  reevaluate: SegmentReevaluation,
  projectId: string,
  input: ContactCreate,
): Promise<ContactUpsertResult> {
  const email = input.email
  if (email === undefined) throw new AppError('BAD_REQUEST', 'email is required', { plain: true })
  return db.transaction(async (tx) => {
    const result = await upsertContact(
      tx,
      projectId,
      { email, subscribed: input.subscribed, data: input.data },
      { subscribedIfNew: true },
    )
    await reevaluate(tx, new Map([[projectId, [result.contact.id]]]))
    return result
  })
}

export async function getContact(db: Executor, projectId: string, contactId: string): Promise<ContactView> {
  const [contact] = await db
    .select(contactViewColumns)
    .from(contacts)
    .where(and(eq(contacts.id, contactId), eq(contacts.projectId, projectId)))
  if (!contact) throw notFound('Contact')
  return contact
}

const contactViewColumns = {
  id: contacts.id,
  email: contacts.email,
  subscribed: contacts.subscribed,
  snoozedUntil: contacts.snoozedUntil,
  data: contacts.data,
  createdAt: contacts.createdAt,
  updatedAt: contacts.updatedAt,
}

function snoozeTarget(input: ContactUpdate, now: Date): Date | null | undefined {
  if (input.snoozedUntil === undefined) return undefined
  // An explicit subscription ends any snooze by itself.
  if (input.snoozedUntil === null) return input.subscribed === undefined ? null : undefined
  const until = new Date(input.snoozedUntil)
  if (input.subscribed !== undefined) {
    throw new AppError('VALIDATION_ERROR', 'Give either subscribed or snoozedUntil, not both', {
      errors: [{ field: 'snoozedUntil', code: 'custom', message: 'cannot be combined with subscribed' }],
    })
  }
  if (until <= now) {
    throw new AppError('VALIDATION_ERROR', 'snoozedUntil must be in the future', {
      errors: [{ field: 'snoozedUntil', code: 'custom', message: 'must be in the future' }],
    })
  }
  return until
}

/** PATCH /contacts/:id; a change of data or address is re-evaluated at once, as for `createContact`. */
export async function updateContact(
  db: Database,
  reevaluate: SegmentReevaluation,
  projectId: string,
  contactId: string,
  input: ContactUpdate,
): Promise<ContactView> {
  const snoozedUntil = snoozeTarget(input, new Date())
  return db.transaction(async (tx) => {
    if (snoozedUntil) await assertSnoozable(tx, projectId, contactId)
    const row = await updateContactRow(tx, projectId, contactId, {
      email: input.email === undefined ? undefined : normalizeEmail(input.email),
      subscribed: input.subscribed,
      snoozedUntil,
      patch: resolveContactData(input.data),
    }).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'Another contact in this project has this email')
      throw err
    })
    if (!row) throw notFound('Contact')
    if (row.previous_subscribed !== row.subscribed) {
      await publishSubscriptionChange(tx, projectId, row.id, row.subscribed)
    }
    if (input.data !== undefined || input.email !== undefined) {
      await reevaluate(tx, new Map([[projectId, [row.id]]]))
    }
    return toContactView(row)
  })
}

/** Snoozing an unsubscribed contact would resubscribe, at the end, someone who chose to leave. */
async function assertSnoozable(tx: Transaction, projectId: string, contactId: string): Promise<void> {
  const contact = await getContact(tx, projectId, contactId)
  if (!contact.subscribed && !contact.snoozedUntil) {
    throw new AppError('CONFLICT', 'Only a subscribed contact can be snoozed')
  }
}

function isUniqueViolation(err: unknown): boolean {
  const cause = err instanceof Error && 'cause' in err ? err.cause : err
  return typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === '23505'
}

export async function deleteContact(db: Executor, projectId: string, contactId: string): Promise<void> {
  const deleted = await db
    .delete(contacts)
    .where(and(eq(contacts.id, contactId), eq(contacts.projectId, projectId)))
    .returning({ id: contacts.id })
  if (deleted.length === 0) throw notFound('Contact')
}

export async function lookupContacts(
  db: Executor,
  projectId: string,
  emails: readonly string[],
): Promise<{ found: Pick<ContactView, 'id' | 'email' | 'subscribed'>[]; notFound: string[] }> {
  const normalised = [...new Set(emails.map(normalizeEmail))]
  const found = await db
    .select({ id: contacts.id, email: contacts.email, subscribed: contacts.subscribed })
    .from(contacts)
    .where(and(eq(contacts.projectId, projectId), inArray(contacts.email, normalised)))
  const known = new Set(found.map((contact) => contact.email))
  return { found, notFound: normalised.filter((email) => !known.has(email)) }
}
