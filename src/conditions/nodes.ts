import type { EmailActivity } from './fields.js'
import type { Instant } from './instant.js'

/**
 * A condition compiled for the two back ends: a boolean expression over positive tests (leaves), so each
 * negative operator is spelled once, as `not` and `all`, and both back ends only translate `all`/`any`/`not`.
 */
export type ConditionNode =
  | { all: ConditionNode[] }
  | { any: ConditionNode[] }
  | { not: ConditionNode }
  | { leaf: Leaf }

export type Comparison = 'gt' | 'gte' | 'lt' | 'lte'

/** A fixed moment, or one `agoMs` before the moment of evaluation. */
export type InstantOperand = { at: Instant } | { agoMs: number }

export type DataTest =
  | { test: 'present' }
  | { test: 'equals'; value: string | number | boolean }
  /** The stored value is an ISO string written on this date (its first moment, UTC). */
  | { test: 'sameDate'; date: Instant }
  | { test: 'contains'; value: string }
  | { test: 'compareNumber'; comparison: Comparison; value: number }
  | { test: 'compareInstant'; comparison: Comparison; operand: InstantOperand }

export type Leaf =
  /** `value` is lower-case, as stored emails are. */
  | { kind: 'email'; test: 'equals' | 'contains'; value: string }
  | { kind: 'subscribed'; value: boolean }
  | { kind: 'timestamp'; column: 'createdAt' | 'updatedAt'; comparison: Comparison; operand: InstantOperand }
  | { kind: 'data'; path: string[]; test: DataTest }
  /** The contact has had the event, at or after `withinMs` before now when given. */
  | { kind: 'event'; name: string; withinMs?: number }
  | { kind: 'emailActivity'; activity: EmailActivity; withinMs?: number }
  /** An active member of a static segment. */
  | { kind: 'staticMember'; segmentId: string }

/** A segment filter before `prepareCondition` has loaded the segment. */
export type SegmentReference = { segmentId: string; negate: boolean }

export function compare<T extends number | bigint>(left: T, comparison: Comparison, right: T): boolean {
  switch (comparison) {
    case 'gt':
      return left > right
    case 'gte':
      return left >= right
    case 'lt':
      return left < right
    case 'lte':
      return left <= right
  }
}

export const comparisonOperators: Record<Comparison, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' }
