import { sql } from 'drizzle-orm'
import type { Executor } from '../db/client.js'
import { timestampText, uuidPattern } from '../db/keyset.js'
import { type EmailActivity, emailActivities, emailActivityColumns } from './fields.js'
import { type Instant, parseInstant } from './instant.js'
import type { PreparedCondition } from './prepare.js'

/**
 * What `matchesCondition` needs about one contact: the row, and of its history only what the condition looks
 * at. The latest moment of each event and email activity answers every activity operator (triggered: there
 * is one; within: the latest is recent enough; older than: the latest is not).
 */
export type ContactSnapshot = {
  id: string
  email: string
  subscribed: boolean
  data: Record<string, unknown>
  createdAt: Instant
  updatedAt: Instant
  /** The latest time of each event the condition names that the contact has had. */
  lastEventAt: ReadonlyMap<string, Instant>
  /** The latest time of each email activity the condition names that any of the contact's emails has had. */
  lastEmailActivityAt: ReadonlyMap<EmailActivity, Instant>
  /** The static segments the condition names that the contact is an active member of. */
  staticSegmentIds: ReadonlySet<string>
}

type SnapshotRow = {
  id: string
  email: string
  subscribed: boolean
  data: Record<string, unknown>
  created_at: string
  updated_at: string
  last_event_at: Record<string, string> | null
  last_email_activity_at: Partial<Record<EmailActivity, string | null>> | null
  segment_ids: string[] | null
}

function instantFromDatabase(text: string): Instant {
  const at = parseInstant(text)
  if (at === undefined) throw new Error(`unexpected timestamp text ${text}`)
  return at
}

/** One query: the contact (of this project) and the history the prepared condition needs. */
export async function loadContactSnapshot(
  db: Executor,
  projectId: string,
  contactId: string,
  prepared: PreparedCondition,
): Promise<ContactSnapshot | undefined> {
  if (prepared.projectId !== projectId) throw new Error('the condition was prepared for another project')
  if (!uuidPattern.test(contactId)) return undefined
  const { eventNames, emailActivities: activities, staticSegmentIds } = prepared.needs
  const activityColumns = emailActivities
    .filter((activity) => activities.includes(activity))
    .map(
      (activity) =>
        sql`${activity}::text, ${timestampText(sql`max(${sql.identifier(emailActivityColumns[activity])})`)}`,
    )
  const result = await db.execute<SnapshotRow>(sql`
    SELECT c.id, c.email, c.subscribed, c.data,
      ${timestampText(sql`c.created_at`)} AS created_at, ${timestampText(sql`c.updated_at`)} AS updated_at,
      ${
        eventNames.length === 0
          ? sql`NULL`
          : sql`(SELECT jsonb_object_agg(latest.name, latest.at) FROM (
              SELECT name, ${timestampText(sql`max(created_at)`)} AS at FROM events
              WHERE contact_id = c.id AND project_id = ${projectId}::uuid AND name = ANY(${sql.param(eventNames)}::text[])
              GROUP BY name) AS latest)`
      } AS last_event_at,
      ${
        activityColumns.length === 0
          ? sql`NULL`
          : sql`(SELECT jsonb_build_object(${sql.join(activityColumns, sql`, `)}) FROM emails
              WHERE contact_id = c.id AND project_id = ${projectId}::uuid)`
      } AS last_email_activity_at,
      ${
        staticSegmentIds.length === 0
          ? sql`NULL`
          : sql`ARRAY(SELECT segment_id::text FROM segment_memberships
              WHERE contact_id = c.id AND segment_id = ANY(${sql.param(staticSegmentIds)}::uuid[]) AND exited_at IS NULL)`
      } AS segment_ids
    FROM contacts AS c
    WHERE c.project_id = ${projectId}::uuid AND c.id = ${contactId}::uuid`)
  const row = result.rows[0]
  if (!row) return undefined
  const lastEmailActivityAt = new Map<EmailActivity, Instant>()
  for (const [activity, at] of Object.entries(row.last_email_activity_at ?? {})) {
    if (at) lastEmailActivityAt.set(activity as EmailActivity, instantFromDatabase(at))
  }
  return {
    id: row.id,
    email: row.email,
    subscribed: row.subscribed,
    data: row.data,
    createdAt: instantFromDatabase(row.created_at),
    updatedAt: instantFromDatabase(row.updated_at),
    lastEventAt: new Map(Object.entries(row.last_event_at ?? {}).map(([name, at]) => [name, instantFromDatabase(at)])),
    lastEmailActivityAt,
    staticSegmentIds: new Set(row.segment_ids ?? []),
  }
}
