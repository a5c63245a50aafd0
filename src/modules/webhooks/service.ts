import { randomUUID } from 'node:crypto'
import { and, asc, count, eq, sql } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { Executor } from '../../db/client.js'
import { webhookEndpoints } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { checkEndpointUrl } from './endpoint-url.js'
import { unknownEventTypeWarnings } from './event-types.js'
import type { WebhookCreate, WebhookCreated, WebhookSaved, WebhookUpdate, WebhookView } from './schemas.js'
import { newWebhookSecret, sealWebhookSecret } from './signature.js'

/** A project's endpoints are few (each one is a fan-out join per event); more than this is a mistake. */
const maxEndpointsPerProject = 50
/** How long the secret before a rotation keeps signing beside the new one, for receivers to switch over. */
const rotationOverlapMs = 24 * 3_600_000

type EndpointRow = typeof webhookEndpoints.$inferSelect

function toView(row: EndpointRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince,
    previousSecretExpiresAt:
      row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > Date.now()
        ? row.previousSecretExpiresAt
        : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

const byId = (projectId: string, id: string) =>
  and(eq(webhookEndpoints.projectId, projectId), eq(webhookEndpoints.id, id))

export async function createWebhook(
  db: Executor,
  config: Config,
  projectId: string,
  input: WebhookCreate,
): Promise<WebhookCreated> {
  const url = checkEndpointUrl(input.url, { allowPrivate: config.webhookAllowPrivate })
  const eventTypes = [...new Set(input.eventTypes)]
  const [existing] = await db
    .select({ total: count() })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.projectId, projectId))
  if ((existing?.total ?? 0) >= maxEndpointsPerProject) {
    throw new AppError('CONFLICT', `A project can have at most ${maxEndpointsPerProject} webhook endpoints`)
  }
  const id = randomUUID()
  const secret = newWebhookSecret()
  const [row] = await db
    .insert(webhookEndpoints)
    .values({
      id,
      projectId,
      url,
      description: input.description,
      eventTypes,
      enabled: input.enabled,
      secret: sealWebhookSecret(config.secret, id, secret),
    })
    .returning()
  if (!row) throw new Error('webhook endpoint insert returned no row')
  const warnings = await unknownEventTypeWarnings(db, projectId, eventTypes)
  return { ...toView(row), warnings, secret }
}

export async function listWebhooks(db: Executor, projectId: string): Promise<WebhookView[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.projectId, projectId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
  return rows.map(toView)
}

async function findRow(db: Executor, projectId: string, id: string): Promise<EndpointRow> {
  const [row] = await db.select().from(webhookEndpoints).where(byId(projectId, id))
  if (!row) throw notFound('Webhook')
  return row
}

export async function getWebhook(db: Executor, projectId: string, id: string): Promise<WebhookView> {
  return toView(await findRow(db, projectId, id))
}

export async function updateWebhook(
  db: Executor,
  config: Config,
  projectId: string,
  id: string,
  input: WebhookUpdate,
): Promise<WebhookSaved> {
  const url =
    input.url === undefined ? undefined : checkEndpointUrl(input.url, { allowPrivate: config.webhookAllowPrivate })
  const eventTypes = input.eventTypes && [...new Set(input.eventTypes)]
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      ...(url !== undefined && { url }),
      ...(input.description !== undefined && { description: input.description }),
      ...(eventTypes && { eventTypes }),
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      // Enabled again by hand: the failure streak that disabled it starts over.
      ...(input.enabled === true && { disabledReason: null, failingSince: null }),
      ...(input.enabled === false && { disabledReason: null }),
      updatedAt: sql`now()`,
    })
    .where(byId(projectId, id))
    .returning()
  if (!row) throw notFound('Webhook')
  const warnings = eventTypes ? await unknownEventTypeWarnings(db, projectId, eventTypes) : []
  return { ...toView(row), warnings }
}

export async function deleteWebhook(db: Executor, projectId: string, id: string): Promise<void> {
  const deleted = await db.delete(webhookEndpoints).where(byId(projectId, id)).returning({ id: webhookEndpoints.id })
  if (deleted.length === 0) throw notFound('Webhook')
}

/**
 * A new secret, answered once; the current one becomes the previous and keeps signing beside it for a day. A
 * second rotation within that day drops the oldest: only the two newest secrets ever sign.
 */
export async function rotateWebhookSecret(
  db: Executor,
  config: Config,
  projectId: string,
  id: string,
): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
  const secret = newWebhookSecret()
  const previousSecretExpiresAt = new Date(Date.now() + rotationOverlapMs)
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      previousSecret: sql`${webhookEndpoints.secret}`,
      previousSecretExpiresAt,
      secret: sealWebhookSecret(config.secret, id, secret),
      updatedAt: sql`now()`,
    })
    .where(byId(projectId, id))
    .returning({ id: webhookEndpoints.id })
  if (!row) throw notFound('Webhook')
  return { secret, previousSecretExpiresAt }
}

/** The endpoint, for the message routes: another project's is as missing as none. */
export async function requireWebhook(db: Executor, projectId: string, id: string): Promise<EndpointRow> {
  return findRow(db, projectId, id)
}
