import { parseField } from './fields.js'
import type { ConditionTree } from './tree.js'

/**
 * What a tree names, for usage lookups (`/contacts/fields/:field/usage`, `/events/:name/usage`, segment delete):
 * the top-level data keys (`data.address.city` names `address`), event names and segment ids. Segments the named
 * segments reference are not followed.
 */
export function conditionReferences(tree: ConditionTree): {
  dataKeys: string[]
  eventNames: string[]
  segmentIds: string[]
} {
  const dataKeys = new Set<string>()
  const eventNames = new Set<string>()
  const segmentIds = new Set<string>()
  const pending = [tree]
  for (let next = pending.pop(); next; next = pending.pop()) {
    for (const group of next.groups) {
      for (const filter of group.filters) {
        const field = parseField(filter.field, filter.value)
        if (typeof field === 'string') continue
        if (field.kind === 'data' && field.path[0] !== undefined) dataKeys.add(field.path[0])
        else if (field.kind === 'event') eventNames.add(field.name)
        else if (field.kind === 'segment') segmentIds.add(field.segmentId)
      }
      if (group.conditions) pending.push(group.conditions)
    }
  }
  return { dataKeys: [...dataKeys], eventNames: [...eventNames], segmentIds: [...segmentIds] }
}

/** A contact data key or an event name, as usage lookups ask for them. */
export type ConditionReferenceTarget = { dataKey: string } | { eventName: string }

export function conditionRefersTo(tree: ConditionTree, target: ConditionReferenceTarget): boolean {
  const references = conditionReferences(tree)
  return 'dataKey' in target
    ? references.dataKeys.includes(target.dataKey)
    : references.eventNames.includes(target.eventName)
}
