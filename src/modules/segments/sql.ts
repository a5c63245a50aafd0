import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { insertEvents } from '../../events/rows.js'
import { segmentEventData, segmentEventName } from './events.js'

/**
 * Named set-based statements of segment membership. Every membership change is one statement for the whole
 * set (never one per contact), and when the segment is tracked the same statement inserts its
 * `segment.<slug>.entry|exit` events. Callers hold the segment's `membership` row lock (`findSegment`), which makes the
 * "was not a member before" reads exact, so no contact gets two entries or two exits.
 */

export type MembershipSegment = { id: string; projectId: string; name: string; trackMembership: boolean }

export type MembershipDiff = { added: number; removed: number }

/**
 * The CTE that publishes the events of a membership change, reading the contact ids of the `entered` and
 * `exited` CTEs; nothing for an untracked segment.
 */
function publishChanges(segment: MembershipSegment, entered: SQL | undefined, exited: SQL | undefined): SQL {
  if (!segment.trackMembership) return sql``
  const data = JSON.stringify(segmentEventData(segment))
  const sources = [
    entered && sql`SELECT contact_id, ${segmentEventName(segment, 'entry')}::text AS name FROM ${entered}`,
    exited && sql`SELECT contact_id, ${segmentEventName(segment, 'exit')}::text AS name FROM ${exited}`,
  ].filter((source) => source !== undefined)
  return sql`, published AS (${insertEvents(sql`
    SELECT NULL::uuid, ${segment.projectId}::uuid, change.contact_id, change.name, ${data}::jsonb
    FROM (${sql.join(sources, sql` UNION ALL `)}) AS change
    ORDER BY change.contact_id`)}
  )`
}

/**
 * Makes the active membership equal the contacts that match `predicate` (SQL over the contacts alias `c`):
 * non-members that match enter (a past member's row is reused, `entered_at` moved), members that no longer
 * match exit. With `scope`, only those contacts are looked at (per-contact re-evaluation); without it, the
 * whole project (compute).
 *
 * The diff is a FULL JOIN of the matching contacts and the current memberships, which PostgreSQL can only run
 * as a hash or merge join: an anti-join against the table being inserted into could be planned as a nested
 * loop that rescans it per contact, growing with every row inserted (quadratic at 100k entries).
 */
export async function applyMembershipDiff(
  db: Executor,
  segment: MembershipSegment,
  predicate: SQL,
  scope?: readonly string[],
): Promise<MembershipDiff> {
  const scoped = (column: SQL) => (scope ? sql`AND ${column} = ANY(${sql.param(scope)}::uuid[])` : sql``)
  const result = await db.execute<MembershipDiff>(sql`
    WITH matching AS MATERIALIZED (
      SELECT c.id FROM contacts c WHERE c.project_id = ${segment.projectId} ${scoped(sql`c.id`)} AND ${predicate}
    ), current AS MATERIALIZED (
      SELECT m.contact_id, m.exited_at IS NULL AS active FROM segment_memberships m
      WHERE m.segment_id = ${segment.id} ${scoped(sql`m.contact_id`)}
    ), diff AS MATERIALIZED (
      SELECT coalesce(matching.id, current.contact_id) AS contact_id, matching.id IS NOT NULL AS enters
      FROM matching FULL JOIN current ON current.contact_id = matching.id
      -- Matching but not an active member (enters), or an active member no longer matching (exits).
      WHERE (matching.id IS NULL) = coalesce(current.active, false)
    ), entered AS (
      INSERT INTO segment_memberships AS m (segment_id, contact_id)
      SELECT ${segment.id}::uuid, contact_id FROM diff WHERE enters ORDER BY contact_id
      ON CONFLICT (segment_id, contact_id) DO UPDATE SET entered_at = now(), exited_at = NULL
      WHERE m.exited_at IS NOT NULL
      RETURNING m.contact_id
    ), exited AS (
      UPDATE segment_memberships AS m SET exited_at = now()
      FROM diff WHERE NOT diff.enters AND m.segment_id = ${segment.id} AND m.contact_id = diff.contact_id
        AND m.exited_at IS NULL
      RETURNING m.contact_id
    )${publishChanges(segment, sql`entered`, sql`exited`)}
    SELECT (SELECT count(*) FROM entered)::int AS added, (SELECT count(*) FROM exited)::int AS removed`)
  return result.rows[0] ?? { added: 0, removed: 0 }
}

/** The normalised addresses as a one-column relation `wanted(email)`. */
function wantedEmails(emails: readonly string[]): SQL {
  return sql`wanted AS (SELECT DISTINCT email FROM unnest(${sql.param(emails)}::text[]) AS input(email))`
}

export type AddedMembers = {
  /** The addresses that matched a contact (created ones included). */
  emails: string[]
  created: number
  /** Contacts that were not active members before. */
  entered: string[]
}

/**
 * Adds the project's contacts with these (normalised) addresses to a static segment, creating the missing ones
 * first when `create` is given. A member added again keeps its row and gets a new `entered_at` (as Plunk does);
 * only contacts that were not active members enter (and get an entry event).
 */
export async function addStaticMembers(
  db: Executor,
  segment: MembershipSegment,
  emails: readonly string[],
  create: { subscribed: boolean } | undefined,
): Promise<AddedMembers> {
  const created = create
    ? sql`, created AS (
        INSERT INTO contacts (project_id, email, subscribed)
        SELECT ${segment.projectId}, email, ${create.subscribed}::boolean FROM wanted
        ON CONFLICT (project_id, email) DO NOTHING
        RETURNING id, email
      )`
    : sql`, created AS (SELECT NULL::uuid AS id, NULL::text AS email WHERE false)`
  const result = await db.execute<{ id: string; email: string; created: boolean; entered: boolean }>(sql`
    WITH ${wantedEmails(emails)}${created}, found AS (
      SELECT c.id, c.email, false AS created FROM contacts c JOIN wanted ON wanted.email = c.email
      WHERE c.project_id = ${segment.projectId}
      UNION ALL
      SELECT id, email, true FROM created
    ), previous AS (
      SELECT contact_id FROM segment_memberships
      WHERE segment_id = ${segment.id} AND exited_at IS NULL AND contact_id IN (SELECT id FROM found)
    ), written AS (
      INSERT INTO segment_memberships AS m (segment_id, contact_id)
      SELECT ${segment.id}::uuid, id FROM found
      ON CONFLICT (segment_id, contact_id) DO UPDATE SET entered_at = now(), exited_at = NULL
      RETURNING m.contact_id
    ), entered AS (
      SELECT contact_id FROM written WHERE contact_id NOT IN (SELECT contact_id FROM previous)
    )${publishChanges(segment, sql`entered`, undefined)}
    SELECT id, email, created, id IN (SELECT contact_id FROM entered) AS entered FROM found`)
  return {
    emails: result.rows.map((row) => row.email),
    created: result.rows.filter((row) => row.created).length,
    entered: result.rows.filter((row) => row.entered).map((row) => row.id),
  }
}

export type RemovedMembers = { matched: number; exited: string[] }

/** Ends the active membership of the project's contacts with these addresses. */
export async function removeStaticMembers(
  db: Executor,
  segment: MembershipSegment,
  emails: readonly string[],
): Promise<RemovedMembers> {
  const result = await db.execute<RemovedMembers>(sql`
    WITH ${wantedEmails(emails)}, found AS (
      SELECT c.id FROM contacts c JOIN wanted ON wanted.email = c.email WHERE c.project_id = ${segment.projectId}
    ), exited AS (
      UPDATE segment_memberships AS m SET exited_at = now()
      WHERE m.segment_id = ${segment.id} AND m.exited_at IS NULL AND m.contact_id IN (SELECT id FROM found)
      RETURNING m.contact_id
    )${publishChanges(segment, undefined, sql`exited`)}
    SELECT (SELECT count(*) FROM found)::int AS matched,
      (SELECT coalesce(array_agg(contact_id::text), '{}'::text[]) FROM exited) AS exited`)
  return result.rows[0] ?? { matched: 0, exited: [] }
}

export async function countActiveMembers(db: Executor, segmentId: string): Promise<number> {
  const result = await db.execute<{ total: number }>(sql`
    SELECT count(*)::int AS total FROM segment_memberships WHERE segment_id = ${segmentId} AND exited_at IS NULL`)
  return result.rows[0]?.total ?? 0
}
