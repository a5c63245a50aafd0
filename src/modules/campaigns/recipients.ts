import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { decodeCursor, type KeysetPage, keysetPage, uuidPattern } from '../../db/keyset.js'
import { AppError } from '../../errors.js'
import { branchesOf, type RecipientBranch } from './recipient-states.js'
import type { CampaignRecipient, RecipientListQuery } from './schemas.js'
import { findCampaignRow } from './view.js'

type RecipientRow = {
  id: string
  contact_id: string | null
  to_email: string
  status: CampaignRecipient['status']
  sent_at: string | null
  delivered_at: string | null
  opened_at: string | null
  clicked_at: string | null
  bounced_at: string | null
  complained_at: string | null
  failed_at: string | null
  last_error: string | null
  branch: number
}

/** Where a listing stopped: the branch (of its state's `branchesOf`) and the last id read in it. */
export type RecipientPosition = { branch: number; id: string }

/** A first page's `total` counts this many recipients at most. */
const maxTotal = 10_000

const date = (value: string | null) => (value === null ? null : new Date(value))

export function toRecipient(row: RecipientRow): CampaignRecipient {
  return {
    emailId: row.id,
    contactId: row.contact_id,
    email: row.to_email,
    status: row.status,
    sentAt: date(row.sent_at),
    deliveredAt: date(row.delivered_at),
    openedAt: date(row.opened_at),
    clickedAt: date(row.clicked_at),
    bouncedAt: date(row.bounced_at),
    complainedAt: date(row.complained_at),
    failedAt: date(row.failed_at),
    failureReason: row.status === 'FAILED' ? row.last_error : null,
  }
}

function branchSelect(projectId: string, campaignId: string, branch: RecipientBranch, index: number): SQL {
  const where =
    branch.status === 'unsubscribed'
      ? sql`e.id IN (SELECT h.email_id FROM email_history h WHERE h.project_id = ${projectId} AND h.kind = 'unsubscribed')`
      : sql`e.status = ${branch.status}::email_status${branch.condition ? sql` AND ${branch.condition}` : sql``}`
  return sql`SELECT e.id, e.contact_id, e.to_email, e.status, e.sent_at, e.delivered_at, e.opened_at, e.clicked_at,
      e.bounced_at, e.complained_at, e.failed_at, e.last_error, ${index}::int AS branch
    FROM emails e WHERE e.campaign_id = ${campaignId} AND e.project_id = ${projectId} AND ${where}`
}

/**
 * Up to `limit` recipients of a state after `after`, in (branch, id) order: one index range per branch, each read
 * in id order and cut at `limit`, merged. Set-based: one statement, whatever the campaign's size.
 */
export async function findRecipientRows(
  db: Executor,
  projectId: string,
  campaignId: string,
  branches: readonly RecipientBranch[],
  after: RecipientPosition | undefined,
  limit: number,
): Promise<RecipientRow[]> {
  const selects = branches.flatMap((branch, index) => {
    if (after && index < after.branch) return []
    const keyset = after && index === after.branch ? sql` AND e.id > ${after.id}::uuid` : sql``
    return [sql`(${branchSelect(projectId, campaignId, branch, index)}${keyset} ORDER BY e.id LIMIT ${limit})`]
  })
  if (selects.length === 0) return []
  const result = await db.execute<RecipientRow>(sql`
    SELECT * FROM (${sql.join(selects, sql` UNION ALL `)}) AS r ORDER BY r.branch, r.id LIMIT ${limit}`)
  return result.rows
}

async function countRecipients(
  db: Executor,
  projectId: string,
  campaignId: string,
  branches: readonly RecipientBranch[],
): Promise<number> {
  const selects = branches.map((branch, index) => branchSelect(projectId, campaignId, branch, index))
  const result = await db.execute<{ total: number }>(sql`
    SELECT count(*)::int AS total FROM (${sql.join(selects, sql` UNION ALL `)} LIMIT ${maxTotal}) AS r`)
  return result.rows[0]?.total ?? 0
}

function positionOf(cursor: string | undefined): RecipientPosition | undefined {
  if (!cursor) return undefined
  const parts = decodeCursor(cursor, 2)
  const branch = Number(parts?.[0])
  if (!parts || !Number.isInteger(branch) || branch < 0 || !uuidPattern.test(parts[1] ?? '')) {
    throw new AppError('BAD_REQUEST', 'Invalid cursor')
  }
  return { branch, id: parts[1] ?? '' }
}

/**
 * `GET /campaigns/:id/recipients`: the campaign's recipients in a state (all without one), with the failure reason
 * of a failed email; cursor-paginated. `total` (first page) counts up to 10,000.
 */
export async function listCampaignRecipients(
  db: Executor,
  projectId: string,
  campaignId: string,
  query: RecipientListQuery,
): Promise<KeysetPage<CampaignRecipient>> {
  await findCampaignRow(db, projectId, campaignId)
  const branches = branchesOf(query.state)
  const rows = await findRecipientRows(db, projectId, campaignId, branches, positionOf(query.cursor), query.limit + 1)
  return keysetPage(rows, query, {
    view: toRecipient,
    cursorOf: (last) => [String(last.branch), last.id],
    countTotal: () => countRecipients(db, projectId, campaignId, branches),
  })
}
