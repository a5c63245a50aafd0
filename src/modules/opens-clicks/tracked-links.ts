import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'

export type StoredLink = {
  url: string
  projectId: string
  /** The project of the email the click names; null when that email is gone (a reset wiped it). */
  emailProjectId: string | null
}

/** The link a click URL names, with the project of its email: one primary-key lookup of each. */
export async function findTrackedLink(db: Executor, linkId: Buffer, emailId: string): Promise<StoredLink | undefined> {
  const result = await db.execute<{ url: string; project_id: string; email_project_id: string | null }>(sql`
    SELECT url, project_id, (SELECT project_id FROM emails WHERE id = ${emailId}) AS email_project_id
    FROM tracked_links WHERE id = ${linkId}`)
  const row = result.rows[0]
  return row && { url: row.url, projectId: row.project_id, emailProjectId: row.email_project_id }
}
