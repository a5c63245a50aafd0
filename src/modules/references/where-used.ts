import type { ConditionReferenceTarget } from '../../conditions/index.js'
import type { Executor } from '../../db/client.js'
import { findCampaignsReferencing } from './campaigns.js'
import type { Reference } from './reference.js'
import { findSegmentsReferencing } from './segments.js'
import { findWorkflowsReferencing } from './workflows.js'

export type References = { segments: Reference[]; campaigns: Reference[]; workflows: Reference[] }

/**
 * Where a contact data key (`{dataKey}`) or an event name (`{eventName}`) is used in the project: the segments,
 * campaigns and workflows that would read it, each oldest first. The answer of the field and event usage routes,
 * and what deleting a field or an event's history warns about.
 */
export async function findReferences(
  db: Executor,
  projectId: string,
  target: ConditionReferenceTarget,
): Promise<References> {
  const [segments, campaigns, workflows] = await Promise.all([
    findSegmentsReferencing(db, projectId, target),
    findCampaignsReferencing(db, projectId, target),
    findWorkflowsReferencing(db, projectId, target),
  ])
  return { segments, campaigns, workflows }
}
