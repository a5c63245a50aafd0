import { sql } from 'drizzle-orm'
import { allOk, createBatcher } from '../../db/batcher.js'
import type { Database, Executor } from '../../db/client.js'
import type { TrackedLink } from '../../mail/outbound/tracking-links.js'

type LinkRow = { id: string; projectId: string; url: string }

/** Stores the links of tracked emails (`tracked_links`) before they are sent; already stored ones cost nothing. */
export type TrackedLinkStore = {
  /** Settles once every link is stored (or was before); rejects when the database does not answer. */
  save(projectId: string, links: readonly TrackedLink[]): Promise<void>
}

const insertBatchSize = 500

/** One statement for any number of links; a link stored before (same id) is left as it is. */
async function insertTrackedLinks(db: Executor, rows: readonly LinkRow[]): Promise<void> {
  await db.execute(sql`
    INSERT INTO tracked_links (id, project_id, url)
    SELECT decode(translate(id, '-_', '+/'), 'base64'), project_id, url
    FROM unnest(${sql.param(rows.map((row) => row.id))}::text[], ${sql.param(rows.map((row) => row.projectId))}::uuid[],
      ${sql.param(rows.map((row) => row.url))}::text[]) AS input(id, project_id, url)
    ON CONFLICT (id) DO NOTHING`)
}

/**
 * The outbox's store of tracked links. A campaign's links are the same in every email (ids derive from the project
 * and the link), so this process remembers the ids it stored and writes a link once, not once per email (emails
 * composed at the same moment wait for the same write); links that differ per contact (a personal query string) are
 * written in batches shared by the emails composed meanwhile (group commit). The memory is bounded: past
 * `rememberedLinks` ids it starts over, at the cost of writing some links again (which changes nothing).
 */
export function createTrackedLinkStore(db: Database, rememberedLinks = 50_000): TrackedLinkStore {
  // `true` once stored; the write in flight otherwise.
  const known = new Map<string, true | Promise<void>>()
  const insert = createBatcher<LinkRow, void>({
    maxSize: insertBatchSize,
    maxInFlight: 2,
    async run(rows) {
      await insertTrackedLinks(db, rows)
      return allOk(rows.map(() => undefined))
    },
  })
  const store = (row: LinkRow) => {
    if (known.size >= rememberedLinks) known.clear()
    const saving = insert(row).then(
      () => {
        known.set(row.id, true)
      },
      (err: unknown) => {
        known.delete(row.id)
        throw err
      },
    )
    known.set(row.id, saving)
    return saving
  }
  return {
    async save(projectId, links) {
      const writes: Promise<void>[] = []
      for (const link of links) {
        const state = known.get(link.id)
        if (state !== true) writes.push(state ?? store({ id: link.id, projectId, url: link.url }))
      }
      if (writes.length > 0) await Promise.all(writes)
    },
  }
}
