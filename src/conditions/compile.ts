import { type ConditionOperator, type FieldRef, kindNames, operatorsByKind, parseField } from './fields.js'
import { type Instant, oneDay, parseInstant } from './instant.js'
import { numberOf } from './json-values.js'
import { conditionLimits } from './limits.js'
import type { Comparison, ConditionNode, DataTest, InstantOperand, SegmentReference } from './nodes.js'
import type { ConditionFilter, ConditionUnit } from './tree.js'

/** Why a filter is refused: the key of the filter at fault, and a zod-style issue code. */
export type FilterIssue = { key: 'field' | 'operator' | 'value' | 'unit'; message: string } & (
  | { code: 'custom' }
  | { code: 'invalid_type'; expected: 'string' | 'number' | 'boolean' }
  | { code: 'invalid_value'; values: string[] }
)

export type CompiledFilter = { node: ConditionNode } | { segment: SegmentReference }

class InvalidFilter extends Error {
  constructor(readonly issue: FilterIssue) {
    super(issue.message)
  }
}

const unitMs: Record<ConditionUnit, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 }
const units = Object.keys(unitMs)

const comparisonOf: Partial<Record<ConditionOperator, Comparison>> = {
  greaterThan: 'gt',
  greaterThanOrEqual: 'gte',
  lessThan: 'lt',
  lessThanOrEqual: 'lte',
}

/** The one reading of a filter, used by the schema to validate and by `prepareCondition` to compile. */
export function compileFilter(filter: ConditionFilter): CompiledFilter | { issue: FilterIssue } {
  try {
    const field = parseField(checkedText(filter.field, 'field'), filter.value)
    if (typeof field === 'string') throw new InvalidFilter({ key: 'field', code: 'custom', message: field })
    const operator = filter.operator as ConditionOperator
    if (!operatorsByKind[field.kind].includes(operator)) {
      const allowed = operatorsByKind[field.kind].join(', ')
      throw new InvalidFilter({
        key: 'operator',
        code: 'custom',
        message: `Operator "${filter.operator}" does not apply to ${kindNames[field.kind]}; use ${allowed}`,
      })
    }
    if (field.kind === 'segment') {
      return { segment: { segmentId: field.segmentId, negate: operator === 'notMemberOfSegment' } }
    }
    return { node: compileNode(field, operator, filter) }
  } catch (err) {
    if (err instanceof InvalidFilter) return { issue: err.issue }
    throw err
  }
}

type Compilable = Exclude<FieldRef, { kind: 'segment' }>

function compileNode(field: Compilable, operator: ConditionOperator, filter: ConditionFilter): ConditionNode {
  switch (field.kind) {
    case 'email': {
      const value = textValue(filter, operator === 'equals' || operator === 'notEquals' ? 0 : 1).toLowerCase()
      const test = operator === 'equals' || operator === 'notEquals' ? 'equals' : 'contains'
      const leaf: ConditionNode = { leaf: { kind: 'email', test, value } }
      return operator === 'equals' || operator === 'contains' ? leaf : { not: leaf }
    }
    case 'subscribed':
      return { leaf: { kind: 'subscribed', value: booleanValue(filter) === (operator === 'equals') } }
    case 'timestamp':
      return compileTimestamp(field.column, operator, filter)
    case 'data':
      return compileData(field.path, operator, filter)
    case 'event':
    case 'emailActivity':
      return compileActivity(field, operator, filter)
  }
}

function compileTimestamp(
  column: 'createdAt' | 'updatedAt',
  operator: ConditionOperator,
  filter: ConditionFilter,
): ConditionNode {
  const at = (comparison: Comparison, operand: InstantOperand): ConditionNode => ({
    leaf: { kind: 'timestamp', column, comparison, operand },
  })
  switch (operator) {
    case 'equals':
    case 'notEquals': {
      const date = dateValue(filter)
      const sameDate: ConditionNode = { all: [at('gte', { at: date }), at('lt', { at: date + oneDay })] }
      return operator === 'equals' ? sameDate : { not: sameDate }
    }
    case 'within':
      return at('gte', { agoMs: spanMs(filter) })
    case 'olderThan':
      return at('lt', { agoMs: spanMs(filter) })
    default:
      return at(comparisonFor(operator), { at: instantValue(filter) })
  }
}

function compileData(path: string[], operator: ConditionOperator, filter: ConditionFilter): ConditionNode {
  const data = (test: DataTest): ConditionNode => ({ leaf: { kind: 'data', path, test } })
  const present = data({ test: 'present' })
  switch (operator) {
    case 'exists':
      return present
    case 'notExists':
      return { not: present }
    case 'equals':
    case 'notEquals': {
      const value = scalarValue(filter)
      const date = typeof value === 'string' ? parseInstant(value) : undefined
      const equal = data(date === undefined ? { test: 'equals', value } : { test: 'sameDate', date: dateValue(filter) })
      return operator === 'equals' ? equal : { all: [present, { not: equal }] }
    }
    case 'contains':
      return data({ test: 'contains', value: textValue(filter, 1) })
    case 'notContains':
      return { all: [present, { not: data({ test: 'contains', value: textValue(filter, 1) }) }] }
    case 'within':
      return data({ test: 'compareInstant', comparison: 'gte', operand: { agoMs: spanMs(filter) } })
    case 'olderThan':
      return data({ test: 'compareInstant', comparison: 'lt', operand: { agoMs: spanMs(filter) } })
    default: {
      const comparison = comparisonFor(operator)
      const number = numberOf(filter.value)
      if (number !== undefined && Number.isFinite(number))
        return data({ test: 'compareNumber', comparison, value: number })
      const at = typeof filter.value === 'string' ? parseInstant(filter.value) : undefined
      if (at !== undefined) return data({ test: 'compareInstant', comparison, operand: { at } })
      throw new InvalidFilter({
        key: 'value',
        code: 'invalid_type',
        expected: 'number',
        message: `${operator} needs a number or an ISO 8601 date (2026-01-31 or 2026-01-31T12:00:00Z)`,
      })
    }
  }
}

function compileActivity(
  field: Extract<FieldRef, { kind: 'event' | 'emailActivity' }>,
  operator: ConditionOperator,
  filter: ConditionFilter,
): ConditionNode {
  const happened = (withinMs?: number): ConditionNode => ({
    leaf:
      field.kind === 'event'
        ? { kind: 'event', name: field.name, ...(withinMs === undefined ? {} : { withinMs }) }
        : { kind: 'emailActivity', activity: field.activity, ...(withinMs === undefined ? {} : { withinMs }) },
  })
  switch (operator) {
    case 'triggered':
      return happened()
    case 'notTriggered':
      return { not: happened() }
    case 'triggeredWithin':
      return happened(spanMs(filter))
    // As Plunk: it happened, and not in the span (the latest time is older than the span).
    case 'triggeredOlderThan':
      return { all: [happened(), { not: happened(spanMs(filter)) }] }
    default:
      return { not: happened(spanMs(filter)) }
  }
}

function comparisonFor(operator: ConditionOperator): Comparison {
  const comparison = comparisonOf[operator]
  if (!comparison) throw new Error(`no comparison for ${operator}`)
  return comparison
}

function wrongType(expected: 'string' | 'number' | 'boolean', message: string): InvalidFilter {
  return new InvalidFilter({ key: 'value', code: 'invalid_type', expected, message })
}

/**
 * Text that reaches PostgreSQL as a bound parameter must mean the same there: no NUL (text cannot hold it) and
 * no lone surrogate (the driver would send U+FFFD, which the in-memory back end would not compare with).
 */
function checkedText(text: string, key: FilterIssue['key']): string {
  if (text.length > conditionLimits.maxStringLength) {
    throw new InvalidFilter({
      key,
      code: 'custom',
      message: `must be at most ${conditionLimits.maxStringLength} characters`,
    })
  }
  if (text.includes('\u0000') || /\p{Surrogate}/u.test(text)) {
    throw new InvalidFilter({ key, code: 'custom', message: 'must not contain NUL or unpaired surrogate characters' })
  }
  return text
}

function textValue(filter: ConditionFilter, minLength: number): string {
  if (typeof filter.value !== 'string') throw wrongType('string', `${filter.operator} needs a string value`)
  if (filter.value.length < minLength) {
    throw new InvalidFilter({ key: 'value', code: 'custom', message: `${filter.operator} needs a non-empty string` })
  }
  return checkedText(filter.value, 'value')
}

function booleanValue(filter: ConditionFilter): boolean {
  if (typeof filter.value !== 'boolean') throw wrongType('boolean', `${filter.operator} needs true or false`)
  return filter.value
}

function scalarValue(filter: ConditionFilter): string | number | boolean {
  const { value } = filter
  if (typeof value === 'string') return checkedText(value, 'value')
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value
  throw wrongType('string', `${filter.operator} needs a string, number or boolean value`)
}

function instantValue(filter: ConditionFilter): Instant {
  const at = typeof filter.value === 'string' ? parseInstant(filter.value) : undefined
  if (at === undefined) {
    throw wrongType('string', `${filter.operator} needs an ISO 8601 date (2026-01-31 or 2026-01-31T12:00:00Z)`)
  }
  return at
}

/** The date written in the value: equals on dates compares calendar dates, as Plunk does. */
function dateValue(filter: ConditionFilter): Instant {
  instantValue(filter)
  return instantValue({ ...filter, value: String(filter.value).slice(0, 10) })
}

/** `value` `unit`s in milliseconds: a positive number (or numeric string), at most `maxSpanDays`. */
function spanMs(filter: ConditionFilter): number {
  const amount = numberOf(filter.value)
  if (amount === undefined || !Number.isFinite(amount) || amount <= 0) {
    throw wrongType('number', `${filter.operator} needs a positive number of ${filter.unit ?? 'units'} as its value`)
  }
  if (!filter.unit || !Object.hasOwn(unitMs, filter.unit)) {
    throw new InvalidFilter({
      key: 'unit',
      code: 'invalid_value',
      values: units,
      message: `${filter.operator} needs a unit: ${units.join(', ')}`,
    })
  }
  const ms = Math.round(amount * unitMs[filter.unit])
  if (ms > conditionLimits.maxSpanDays * unitMs.days) {
    throw new InvalidFilter({
      key: 'value',
      code: 'custom',
      message: `A span may be at most ${conditionLimits.maxSpanDays} days`,
    })
  }
  return ms
}
