import { type SQL, sql } from 'drizzle-orm'
import { dateOfText, dateOfTextSql, type Instant, instantOfTextSql, parseInstant } from './instant.js'

/**
 * How a contact's `data` values are read by a filter, each rule in JavaScript next to its SQL twin over a jsonb
 * expression. The SQL forms never raise an error (casts run only behind a CASE that proved them safe) and are
 * NULL exactly where the JavaScript gives undefined.
 */

/** The value at a data path: objects only are walked (`data.a.b`); JSON null counts as missing. */
export function dataValueAt(data: unknown, path: readonly string[]): unknown {
  let value = data
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) {
      return undefined
    }
    value = (value as Record<string, unknown>)[key]
  }
  return value === null ? undefined : value
}

/** `->` with a text key reads object members only, as `dataValueAt` does (`#>` would index arrays too). */
export function dataValueAtSql(data: SQL, path: readonly string[]): SQL {
  return path.reduce((value, key) => sql`(${value} -> ${key}::text)`, data)
}

export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null
}

export function isPresentSql(json: SQL): SQL {
  return sql`coalesce(jsonb_typeof(${json}) <> 'null', false)`
}

/**
 * Numeric strings, compared as numbers: plain decimals of at most 15 digits on each side of the point, so
 * PostgreSQL's float8 and JavaScript's Number read them as the same double and neither can overflow.
 */
const numericStringPattern = '^-?[0-9]{1,15}(\\.[0-9]{1,15})?$'
const numericString = new RegExp(numericStringPattern)

/** A JSON number, or a numeric string, as a double; undefined for anything else. */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && numericString.test(value)) return Number(value)
  return undefined
}

export function numberOfSql(json: SQL): SQL {
  return sql`CASE jsonb_typeof(${json}) WHEN 'number' THEN (${json})::float8
    WHEN 'string' THEN CASE WHEN (${json} #>> '{}') ~ ${numericStringPattern} THEN (${json} #>> '{}')::float8 END END`
}

function textOfSql(json: SQL): SQL {
  return sql`CASE WHEN jsonb_typeof(${json}) = 'string' THEN ${json} #>> '{}' END`
}

/** A string in one of the ISO forms of `instant.ts`, as the moment it names. */
export function instantOf(value: unknown): Instant | undefined {
  return typeof value === 'string' ? parseInstant(value) : undefined
}

export function instantOfSql(json: SQL): SQL {
  return instantOfTextSql(textOfSql(json))
}

/** The date written in an ISO string (its first moment, in UTC), whatever time and zone follow it. */
export function dateOf(value: unknown): Instant | undefined {
  return typeof value === 'string' ? dateOfText(value) : undefined
}

export function dateOfSql(json: SQL): SQL {
  return dateOfTextSql(textOfSql(json))
}

/**
 * Equality of a stored value with a filter value: numerically when either side is a JSON number (the other
 * side may be a numeric string), otherwise the same type and the same value (strings exactly, case included).
 */
export function jsonEquals(value: unknown, expected: string | number | boolean): boolean {
  if (typeof value === 'number' || typeof expected === 'number') {
    const number = numberOf(value)
    return number !== undefined && number === numberOf(expected)
  }
  return value === expected
}

export function jsonEqualsSql(json: SQL, expected: string | number | boolean): SQL {
  if (typeof expected === 'number') return sql`coalesce(${numberOfSql(json)} = ${expected}::float8, false)`
  const same = sql`coalesce(${json} = ${JSON.stringify(expected)}::jsonb, false)`
  const number = numberOf(expected)
  if (number === undefined) return same
  return sql`CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json})::float8 = ${number}::float8 ELSE ${same} END`
}

/** A substring of a string, or an element (a string equal to it) of an array. */
export function jsonContains(value: unknown, text: string): boolean {
  if (typeof value === 'string') return value.includes(text)
  return Array.isArray(value) && value.includes(text)
}

export function jsonContainsSql(json: SQL, text: string): SQL {
  return sql`CASE jsonb_typeof(${json}) WHEN 'string' THEN strpos(${json} #>> '{}', ${text}::text) > 0
    WHEN 'array' THEN ${json} @> jsonb_build_array(${text}::text) ELSE false END`
}
