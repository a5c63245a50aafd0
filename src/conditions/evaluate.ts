import { type Instant, instantOfDate } from './instant.js'
import { dataValueAt, dateOf, instantOf, isPresent, jsonContains, jsonEquals, numberOf } from './json-values.js'
import { type ConditionNode, compare, type DataTest, type InstantOperand, type Leaf } from './nodes.js'
import type { PreparedCondition } from './prepare.js'
import type { ContactSnapshot } from './snapshot.js'

/** The condition against one contact, in memory: the same answer `conditionSql` gives for its row at `now`. */
export function matchesCondition(
  prepared: PreparedCondition,
  contact: ContactSnapshot,
  now: Date = new Date(),
): boolean {
  const nowInstant = instantOfDate(now)
  const evaluate = (node: ConditionNode): boolean => {
    if ('all' in node) return node.all.every(evaluate)
    if ('any' in node) return node.any.some(evaluate)
    if ('not' in node) return !evaluate(node.not)
    return leafMatches(node.leaf, contact, nowInstant)
  }
  return evaluate(prepared.root)
}

function instantOfOperand(operand: InstantOperand, now: Instant): Instant {
  return 'at' in operand ? operand.at : now - BigInt(operand.agoMs) * 1000n
}

function happenedSince(at: Instant | undefined, withinMs: number | undefined, now: Instant): boolean {
  if (at === undefined) return false
  return withinMs === undefined || at >= now - BigInt(withinMs) * 1000n
}

function leafMatches(leaf: Leaf, contact: ContactSnapshot, now: Instant): boolean {
  switch (leaf.kind) {
    case 'email':
      return leaf.test === 'equals' ? contact.email === leaf.value : contact.email.includes(leaf.value)
    case 'subscribed':
      return contact.subscribed === leaf.value
    case 'timestamp':
      return compare(contact[leaf.column], leaf.comparison, instantOfOperand(leaf.operand, now))
    case 'data':
      return dataTestMatches(dataValueAt(contact.data, leaf.path), leaf.test, now)
    case 'event':
      return happenedSince(contact.lastEventAt.get(leaf.name), leaf.withinMs, now)
    case 'emailActivity':
      return happenedSince(contact.lastEmailActivityAt.get(leaf.activity), leaf.withinMs, now)
    case 'staticMember':
      return contact.staticSegmentIds.has(leaf.segmentId)
  }
}

function dataTestMatches(value: unknown, test: DataTest, now: Instant): boolean {
  switch (test.test) {
    case 'present':
      return isPresent(value)
    case 'equals':
      return jsonEquals(value, test.value)
    case 'sameDate':
      return dateOf(value) === test.date
    case 'contains':
      return jsonContains(value, test.value)
    case 'compareNumber': {
      const number = numberOf(value)
      return number !== undefined && compare(number, test.comparison, test.value)
    }
    case 'compareInstant': {
      const at = instantOf(value)
      return at !== undefined && compare(at, test.comparison, instantOfOperand(test.operand, now))
    }
  }
}
