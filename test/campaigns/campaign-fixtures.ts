import { eq } from 'drizzle-orm'
import { expect } from 'vitest'
import type { ConditionTree } from '../../src/conditions/tree.js'
import { campaigns, segmentMemberships, segments } from '../../src/db/schema/index.js'
import type { CampaignView } from '../../src/modules/campaigns/schemas.js'
import { type Account, bearer } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'

/** A campaign as its JSON answer carries it (dates as strings). */
export type CampaignJson = Omit<CampaignView, 'scheduledFor' | 'sentAt' | 'createdAt' | 'updatedAt'> & {
  scheduledFor: string | null
  sentAt: string | null
  createdAt: string
  updatedAt: string
}

/** A campaign to create; its body carries the unsubscribe link the pre-send check requires of a send. */
export function campaignBody(from: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Spring launch',
    subject: 'Hello {{ firstName ?? "friend" }}',
    body: '<p>Hi {{ firstName }}</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
    from,
    audienceType: 'ALL',
    ...overrides,
  }
}

export async function createCampaignOk(
  server: TestServer,
  account: Account,
  body: Record<string, unknown>,
): Promise<CampaignJson> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/campaigns',
    headers: bearer(account.secretKey),
    payload: body,
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json<{ data: CampaignJson }>().data
}

/** A segment row straight in the database (the segments API is another module's). */
export async function insertSegment(
  server: TestServer,
  projectId: string,
  values: { name?: string; type?: 'STATIC' | 'DYNAMIC'; condition?: ConditionTree | null } = {},
): Promise<string> {
  const [row] = await server.ctx.db
    .insert(segments)
    .values({ projectId, name: values.name ?? 'Members', type: values.type ?? 'STATIC', condition: values.condition })
    .returning({ id: segments.id })
  if (!row) throw new Error('segment insert returned nothing')
  return row.id
}

export async function addMembers(
  server: TestServer,
  segmentId: string,
  contactIds: string[],
  exitedAt: Date | null = null,
): Promise<void> {
  await server.ctx.db
    .insert(segmentMemberships)
    .values(contactIds.map((contactId) => ({ segmentId, contactId, exitedAt })))
}

export async function storedCampaign(server: TestServer, id: string) {
  const [row] = await server.ctx.db.select().from(campaigns).where(eq(campaigns.id, id))
  return row
}

/** Moves a campaign as the send path would (status, counters), for the rules that depend on them. */
export async function setCampaign(
  server: TestServer,
  id: string,
  values: Partial<typeof campaigns.$inferInsert>,
): Promise<void> {
  await server.ctx.db.update(campaigns).set(values).where(eq(campaigns.id, id))
}
