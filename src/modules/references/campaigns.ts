import { asc, eq } from 'drizzle-orm'
import { type ConditionReferenceTarget, conditionRefersTo } from '../../conditions/index.js'
import type { Executor } from '../../db/client.js'
import { campaigns } from '../../db/schema/index.js'
import type { Reference } from './reference.js'

/** Liquid that reads a data key: `{{ key }}`, `{{ data.key }}`, or `data.key` in a tag. */
function readsDataKey(source: string, key: string): boolean {
  const name = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`\\bdata\\.${name}\\b|\\{\\{-?\\s*${name}\\b`).test(source)
}

/**
 * The project's campaigns that use a contact data key (in a FILTERED audience, the subject or the body) or an
 * event name (in a FILTERED audience), oldest first: the `campaigns` of the field and event usage answers.
 */
export async function findCampaignsReferencing(
  db: Executor,
  projectId: string,
  target: ConditionReferenceTarget,
): Promise<Reference[]> {
  const rows = await db
    .select({
      id: campaigns.id,
      name: campaigns.name,
      subject: campaigns.subject,
      body: campaigns.body,
      condition: campaigns.audienceCondition,
    })
    .from(campaigns)
    .where(eq(campaigns.projectId, projectId))
    .orderBy(asc(campaigns.createdAt), asc(campaigns.id))
  return rows
    .filter(
      (row) =>
        (row.condition !== null && conditionRefersTo(row.condition, target)) ||
        ('dataKey' in target && (readsDataKey(row.subject, target.dataKey) || readsDataKey(row.body, target.dataKey))),
    )
    .map(({ id, name }) => ({ id, name }))
}
