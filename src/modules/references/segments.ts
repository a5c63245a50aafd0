import { and, asc, eq, isNotNull } from 'drizzle-orm'
import { type ConditionReferenceTarget, conditionRefersTo } from '../../conditions/index.js'
import type { Executor } from '../../db/client.js'
import { segments } from '../../db/schema/index.js'
import type { Reference } from './reference.js'

/**
 * The project's segments whose condition refers to a contact data key (`data.<key>`) or an event name
 * (`event.<name>`), oldest first: the `segments` of the field and event usage answers.
 */
export async function findSegmentsReferencing(
  db: Executor,
  projectId: string,
  target: ConditionReferenceTarget,
): Promise<Reference[]> {
  const rows = await db
    .select({ id: segments.id, name: segments.name, condition: segments.condition })
    .from(segments)
    .where(and(eq(segments.projectId, projectId), isNotNull(segments.condition)))
    .orderBy(asc(segments.createdAt), asc(segments.id))
  return rows
    .filter((row) => row.condition !== null && conditionRefersTo(row.condition, target))
    .map(({ id, name }) => ({ id, name }))
}
