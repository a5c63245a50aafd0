import type pg from 'pg'

export type StoredLink = {
  url: string
  projectId: string
  /** The project of the email the click names; null when that email is gone (a reset wiped it). */
  emailProjectId: string | null
}

type StoredLinkRow = { url: string; project_id: string; email_project_id: string | null }

/**
 * The link a click URL names, with the project of its email: one statement, a primary-key probe of each. A named
 * (prepared) statement: every redirect runs it, and each connection parses and plans it once.
 */
export async function findTrackedLink(pool: pg.Pool, linkId: Buffer, emailId: string): Promise<StoredLink | undefined> {
  const result = await pool.query<StoredLinkRow>({
    name: 'find-tracked-link',
    text: `SELECT url, project_id, (SELECT project_id FROM emails WHERE id = $2) AS email_project_id
      FROM tracked_links WHERE id = $1`,
    values: [linkId, emailId],
  })
  const row = result.rows[0]
  return row && { url: row.url, projectId: row.project_id, emailProjectId: row.email_project_id }
}
