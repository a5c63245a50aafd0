/**
 * The operators and which kinds of field take them (DESIGN.md §4). This file imports nothing, so the dashboard's
 * condition builder reads the same lists as the server's validation instead of a copy.
 */
export const conditionOperators = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'greaterThan',
  'lessThan',
  'greaterThanOrEqual',
  'lessThanOrEqual',
  'exists',
  'notExists',
  'within',
  'olderThan',
  'triggered',
  'notTriggered',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggeredWithin',
  'memberOfSegment',
  'notMemberOfSegment',
] as const
export type ConditionOperator = (typeof conditionOperators)[number]

/** What a filter's field names, by kind: `FieldRef` (fields.ts) is one of these with its details. */
export type FieldKind = 'email' | 'subscribed' | 'timestamp' | 'data' | 'event' | 'emailActivity' | 'segment'

const comparisons = ['equals', 'notEquals', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'] as const
const activity = ['triggered', 'notTriggered', 'triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin'] as const

export const operatorsByKind: Record<FieldKind, readonly ConditionOperator[]> = {
  email: ['equals', 'notEquals', 'contains', 'notContains'],
  subscribed: ['equals', 'notEquals'],
  timestamp: [...comparisons, 'within', 'olderThan'],
  data: [...comparisons, 'contains', 'notContains', 'exists', 'notExists', 'within', 'olderThan'],
  event: activity,
  emailActivity: activity,
  segment: ['memberOfSegment', 'notMemberOfSegment'],
}
