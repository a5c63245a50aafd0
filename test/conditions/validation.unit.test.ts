import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { conditionTreeSchema } from '../../src/conditions/index.js'
import type { FieldError } from '../../src/errors.js'
import { type RequestValidationError, validatorCompiler } from '../../src/http/validation.js'

/** A route's body validator, as fastify runs it: the errors[] a 422 answer carries. */
const validate = validatorCompiler({
  schema: z.object({ condition: conditionTreeSchema }),
  httpPart: 'body',
  method: 'POST',
  url: '/segments',
})

function errorsOf(condition: unknown): FieldError[] {
  const result = validate({ condition }) as { value?: unknown; error?: RequestValidationError }
  return result.error?.fieldErrors ?? []
}

const filter = (field: string, operator: string, value?: unknown, unit?: string) => ({ field, operator, value, unit })
const one = (...filters: unknown[]) => ({ logic: 'AND', groups: [{ filters }] })
const ok = filter('data.plan', 'equals', 'pro')

/** A tree nested `depth` levels deep (the outermost counting as one), built without recursion. */
function nested(depth: number): unknown {
  let tree: unknown = one(ok)
  for (let level = 1; level < depth; level++) tree = { logic: 'AND', groups: [{ filters: [ok], conditions: tree }] }
  return tree
}

const deepPath = (levels: number) => `condition${'.groups.0.conditions'.repeat(levels)}`

describe('a condition tree is accepted', () => {
  it.each([
    ['every field kind', one(ok, filter('email', 'contains', 'gmail'), filter('subscribed', 'equals', true))],
    [
      'dates and spans',
      one(filter('createdAt', 'greaterThan', '2026-01-31T12:00:00+02:00'), filter('updatedAt', 'within', 7, 'days')),
    ],
    ['a numeric string span, as dashboards send', one(filter('event.purchase', 'triggeredWithin', '30', 'days'))],
    ['email activity', one(filter('email.clicked', 'notTriggeredWithin', 2, 'hours'))],
    ['segment references', one(filter('segment.8a1f3c2e-5b7d-4e9a-9c0b-1d2e3f4a5b6c', 'memberOfSegment'))],
    ['exists with a value it ignores', one(filter('data.plan', 'exists', ''))],
    ['SQL-looking values, which are data', one(filter('data.note', 'equals', "'); DROP TABLE contacts; --"))],
    [
      'Liquid-looking values, which are data',
      one(filter('data.note', 'contains', '{{ contact.email | upcase }}{% raw %}')),
    ],
    ['nesting at the limit', nested(5)],
    ['filters at the limit', one(...Array.from({ length: 100 }, () => ok))],
    ['a group of nested conditions only', { logic: 'OR', groups: [{ conditions: one(ok) }] }],
  ])('%s', (_name, condition) => {
    expect(errorsOf(condition)).toEqual([])
  })
})

describe("an event named by itself, as in Plunk's documented segment example", () => {
  const fieldOf = (condition: unknown) =>
    (conditionTreeSchema.parse(condition) as { groups: { filters: { field: string }[] }[] }).groups[0]?.filters[0]
      ?.field

  it.each([
    ['purchase', 'triggeredWithin', 'event.purchase'],
    ['purchase', 'notTriggered', 'event.purchase'],
    ['order.completed', 'triggered', 'event.order.completed'],
    ['event.purchase', 'triggered', 'event.purchase'],
    ['email.opened', 'triggered', 'email.opened'],
  ])('%s with %s is stored as %s', (field, operator, stored) => {
    expect(fieldOf(one(filter(field, operator, operator === 'triggeredWithin' ? 30 : undefined, 'days')))).toBe(stored)
  })

  it('is still an unknown field with any other operator', () => {
    expect(errorsOf(one(filter('purchase', 'equals', 'x')))).toEqual([
      expect.objectContaining({
        field: 'condition.groups.0.filters.0.field',
        message: expect.stringMatching(/Unknown field "purchase"/),
      }),
    ])
  })

  it('does not turn a known field of the wrong kind into an event', () => {
    expect(errorsOf(one(filter('subscribed', 'triggered')))).toEqual([
      expect.objectContaining({ field: 'condition.groups.0.filters.0.operator' }),
    ])
  })
})

describe('a bad condition tree is a 422 with the path of the bad filter', () => {
  it.each([
    [
      'an unknown field',
      { logic: 'AND', groups: [{ filters: [ok] }, { filters: [filter('nickname', 'equals', 'x')] }] },
      'condition.groups.1.filters.0.field',
      'custom',
      'Unknown field "nickname"',
    ],
    [
      'an unknown operator',
      { logic: 'AND', groups: [{ filters: [ok] }, { filters: [filter('data.plan', 'startsWith', 'p')] }] },
      'condition.groups.1.filters.0.operator',
      'invalid_enum_value',
      '',
    ],
    [
      'an operator of another field kind',
      one(filter('data.plan', 'triggered')),
      'condition.groups.0.filters.0.operator',
      'custom',
      'does not apply to data fields',
    ],
    [
      'within on email',
      one(filter('email', 'within', 3, 'days')),
      'condition.groups.0.filters.0.operator',
      'custom',
      '',
    ],
    [
      'an unknown email activity',
      one(filter('email.read', 'triggered')),
      'condition.groups.0.filters.0.field',
      'custom',
      '',
    ],
    ['an empty data key', one(filter('data..plan', 'exists')), 'condition.groups.0.filters.0.field', 'custom', ''],
    [
      'a data path too deep',
      one(filter('data.a.b.c.d.e.f', 'exists')),
      'condition.groups.0.filters.0.field',
      'custom',
      '',
    ],
    [
      'a segment field without an id',
      one(filter('segment.vip', 'memberOfSegment')),
      'condition.groups.0.filters.0.field',
      'custom',
      '',
    ],
    [
      'a string for subscribed',
      one(filter('subscribed', 'equals', 'yes')),
      'condition.groups.0.filters.0.value',
      'invalid_type',
      'true or false',
    ],
    [
      'a word to compare with',
      one(filter('data.age', 'greaterThan', 'old')),
      'condition.groups.0.filters.0.value',
      'invalid_type',
      '',
    ],
    [
      'a number to contain',
      one(filter('data.tags', 'contains', 5)),
      'condition.groups.0.filters.0.value',
      'invalid_type',
      '',
    ],
    [
      'an object to equal',
      one(filter('data.plan', 'equals', { a: 1 })),
      'condition.groups.0.filters.0.value',
      'invalid_type',
      '',
    ],
    ['a missing value', one(filter('data.plan', 'equals')), 'condition.groups.0.filters.0.value', 'invalid_type', ''],
    [
      'null to equal',
      one(filter('data.plan', 'equals', null)),
      'condition.groups.0.filters.0.value',
      'invalid_type',
      '',
    ],
    [
      'a date that is no date',
      one(filter('createdAt', 'lessThan', 'yesterday')),
      'condition.groups.0.filters.0.value',
      'invalid_type',
      '',
    ],
    [
      'a span that is no number',
      one(filter('createdAt', 'within', 'soon', 'days')),
      'condition.groups.0.filters.0.value',
      'invalid_type',
      '',
    ],
    [
      'a negative span',
      one(filter('event.x', 'triggeredWithin', -1, 'days')),
      'condition.groups.0.filters.0.value',
      'invalid_type',
      '',
    ],
    [
      'a span past the limit',
      one(filter('event.x', 'triggeredWithin', 40_000, 'days')),
      'condition.groups.0.filters.0.value',
      'custom',
      '',
    ],
    [
      'a missing unit',
      one(filter('createdAt', 'within', 7)),
      'condition.groups.0.filters.0.unit',
      'invalid_enum_value',
      '',
    ],
    [
      'an unknown unit',
      one(filter('createdAt', 'within', 7, 'weeks')),
      'condition.groups.0.filters.0.unit',
      'invalid_enum_value',
      '',
    ],
    [
      'a string past the limit',
      one(filter('data.note', 'equals', 'x'.repeat(1001))),
      'condition.groups.0.filters.0.value',
      'custom',
      'at most 1000',
    ],
    [
      'a NUL character',
      one(filter('data.note', 'equals', 'a\u0000b')),
      'condition.groups.0.filters.0.value',
      'custom',
      '',
    ],
    [
      'a group with nothing in it',
      { logic: 'AND', groups: [{ filters: [] }] },
      'condition.groups.0.filters',
      'custom',
      '',
    ],
    ['no groups', { logic: 'AND', groups: [] }, 'condition.groups', 'too_small', ''],
    ['an unknown logic', { logic: 'XOR', groups: [{ filters: [ok] }] }, 'condition.logic', 'invalid_enum_value', ''],
    ['nesting one level too deep', nested(6), deepPath(5), 'custom', 'at most 5 levels'],
    [
      'one filter too many',
      {
        logic: 'OR',
        groups: [{ filters: Array.from({ length: 60 }, () => ok) }, { filters: Array.from({ length: 41 }, () => ok) }],
      },
      'condition.groups.1.filters',
      'too_big',
      'at most 100 filters',
    ],
    [
      'one group too many',
      { logic: 'OR', groups: Array.from({ length: 101 }, () => ({ filters: [ok] })) },
      'condition.groups',
      'too_big',
      'at most 100 groups',
    ],
  ])('%s', (_name, condition, field, code, message) => {
    expect(errorsOf(condition)).toEqual([
      expect.objectContaining({ field, code, message: expect.stringContaining(message) }),
    ])
  })

  it('reports every bad filter, each at its own path', () => {
    const errors = errorsOf({
      logic: 'AND',
      groups: [
        { filters: [filter('nickname', 'equals', 'x'), ok] },
        { filters: [ok, filter('createdAt', 'within', 7)] },
      ],
    })
    expect(errors.map((error) => error.field)).toEqual([
      'condition.groups.0.filters.0.field',
      'condition.groups.1.filters.1.unit',
    ])
  })

  it('rejects a tree nested a hundred thousand levels deep at once, without recursing into it', () => {
    const started = performance.now()
    expect(errorsOf(nested(100_000))).toEqual([expect.objectContaining({ field: deepPath(5), code: 'custom' })])
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('rejects a million filters at once', () => {
    const started = performance.now()
    const errors = errorsOf({ logic: 'AND', groups: [{ filters: Array.from({ length: 1_000_000 }, () => ok) }] })
    expect(errors).toEqual([expect.objectContaining({ field: 'condition.groups.0.filters', code: 'too_big' })])
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
