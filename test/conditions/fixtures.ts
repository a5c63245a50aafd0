import { sql } from 'drizzle-orm'
import { conditionSql, conditionTreeSchema, loadContactSnapshot, matchesCondition } from '../../src/conditions/index.js'
import type { PreparedCondition } from '../../src/conditions/prepare.js'
import type { ConditionTree } from '../../src/conditions/tree.js'
import { connectDatabase, type Database, type DatabaseHandle } from '../../src/db/client.js'
import { contacts, emails, events, projects } from '../../src/db/schema/index.js'
import { createTestDatabase } from '../helpers/database.js'

/** The moment every case is evaluated at, so "within" and "older than" cases never straddle a boundary. */
export const now = new Date('2026-03-20T12:00:00.000Z')
const dayMs = 86_400_000

export function daysAgo(days: number): Date {
  return new Date(now.getTime() - days * dayMs)
}

export async function openDatabase(): Promise<DatabaseHandle> {
  return connectDatabase(await createTestDatabase(), { maxConnections: 4 })
}

export async function createProject(db: Database, name = 'Conditions'): Promise<string> {
  const [project] = await db.insert(projects).values({ name }).returning({ id: projects.id })
  if (!project) throw new Error('no project')
  return project.id
}

export type ContactFixture = {
  email: string
  data?: Record<string, unknown>
  subscribed?: boolean
  createdAt?: Date
  updatedAt?: Date
  events?: { name: string; at: Date }[]
  emails?: Partial<Record<'sentAt' | 'deliveredAt' | 'openedAt' | 'clickedAt' | 'bouncedAt' | 'complainedAt', Date>>[]
}

/** Contacts with their events and emails, written straight to the tables; ids by email. */
export async function insertContacts(
  db: Database,
  projectId: string,
  fixtures: readonly ContactFixture[],
): Promise<Map<string, string>> {
  const rows = await db
    .insert(contacts)
    .values(
      fixtures.map((fixture) => ({
        projectId,
        email: fixture.email,
        data: fixture.data ?? {},
        subscribed: fixture.subscribed ?? false,
        createdAt: fixture.createdAt ?? daysAgo(10),
        updatedAt: fixture.updatedAt ?? fixture.createdAt ?? daysAgo(10),
      })),
    )
    .returning({ id: contacts.id, email: contacts.email })
  const ids = new Map(rows.map((row) => [row.email, row.id]))
  const idOf = (email: string) => {
    const id = ids.get(email)
    if (!id) throw new Error(`no contact ${email}`)
    return id
  }
  const eventRows = fixtures.flatMap((fixture) =>
    (fixture.events ?? []).map((event) => ({
      projectId,
      contactId: idOf(fixture.email),
      name: event.name,
      createdAt: event.at,
    })),
  )
  if (eventRows.length > 0) await db.insert(events).values(eventRows)
  const emailRows = fixtures.flatMap((fixture) =>
    (fixture.emails ?? []).map((moments) => emailRow(projectId, idOf(fixture.email), fixture.email, moments)),
  )
  if (emailRows.length > 0) await db.insert(emails).values(emailRows)
  return ids
}

export function emailRow(
  projectId: string,
  contactId: string,
  to: string,
  moments: ContactFixture['emails'] extends (infer T)[] | undefined ? T : never,
) {
  return {
    projectId,
    contactId,
    fromEmail: 'news@example.com',
    toEmail: to,
    subject: 'Hello',
    html: '<p>Hello</p>',
    messageId: `${crypto.randomUUID()}@example.com`,
    status: 'SENT' as const,
    ...moments,
  }
}

/** The emails of the project's contacts the condition matches, by the SQL back end. */
export async function matchedBySql(db: Database, projectId: string, prepared: PreparedCondition): Promise<string[]> {
  const result = await db.execute<{ email: string }>(sql`
    SELECT c.email FROM contacts AS c
    WHERE c.project_id = ${projectId} AND ${conditionSql(prepared, sql`c`, now)}
    ORDER BY c.email`)
  return result.rows.map((row) => row.email)
}

/** The same, by the in-memory back end: one snapshot per contact. */
export async function matchedInMemory(
  db: Database,
  projectId: string,
  ids: ReadonlyMap<string, string>,
  prepared: PreparedCondition,
): Promise<string[]> {
  const matched: string[] = []
  for (const [email, id] of ids) {
    const snapshot = await loadContactSnapshot(db, projectId, id, prepared)
    if (!snapshot) throw new Error(`no snapshot of ${email}`)
    if (matchesCondition(prepared, snapshot, now)) matched.push(email)
  }
  return matched.sort()
}

/** A one-filter tree, validated as a request body would be. */
export function where(field: string, operator: string, value?: unknown, unit?: string): ConditionTree {
  return conditionTreeSchema.parse({ logic: 'AND', groups: [{ filters: [{ field, operator, value, unit }] }] })
}
