import { sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import type { BusEvent } from '../../events/bus.js'
import { reputationKind } from './rollup.js'

/**
 * The guard's two streams. Marketing: campaigns, and workflow steps and `/v1/send` calls with a MARKETING template;
 * paused first, at the warning thresholds. Transactional: everything else (`/v1/send`, SMTP relay, transactional
 * workflow steps, campaign test sends); paused only at the ceiling.
 */
export type Stream = 'marketing' | 'transactional'

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The ids of the batch's reputation events that belong to the marketing stream, read from what every email event
 * carries: a campaign's say so (`sourceType`), and other mail is marketing when its template is a MARKETING one,
 * which is what decided its stream at enqueue (`emails.marketing_stream`). The batch's few distinct templates are
 * read in one statement; reading each event's email instead tripled the subscriber's time per event. Mail whose
 * template was deleted, or changed type, since counts by what the template is now.
 */
export async function marketingEventIds(db: Executor, events: readonly BusEvent[]): Promise<Set<string>> {
  const marketing = new Set<string>()
  const byTemplate = new Map<string, { projectId: string; templateId: string; eventIds: string[] }>()
  for (const event of events) {
    if (!reputationKind(event)) continue
    const { sourceType, templateId } = event.data
    if (sourceType === 'CAMPAIGN') marketing.add(event.id)
    else if (typeof templateId === 'string' && uuidPattern.test(templateId)) {
      const key = `${event.projectId} ${templateId.toLowerCase()}`
      const entry = byTemplate.get(key) ?? { projectId: event.projectId, templateId, eventIds: [] }
      entry.eventIds.push(event.id)
      byTemplate.set(key, entry)
    }
  }
  if (byTemplate.size === 0) return marketing
  const wanted = [...byTemplate.values()]
  const result = await db.execute<{ project_id: string; id: string }>(sql`
    SELECT t.project_id, t.id FROM templates AS t
    JOIN unnest(${sql.param(wanted.map((w) => w.templateId))}::uuid[],
      ${sql.param(wanted.map((w) => w.projectId))}::uuid[]) AS k(id, project_id)
      ON t.id = k.id AND t.project_id = k.project_id
    WHERE t.type = 'MARKETING'`)
  for (const row of result.rows) {
    for (const eventId of byTemplate.get(`${row.project_id} ${row.id}`)?.eventIds ?? []) marketing.add(eventId)
  }
  return marketing
}
