import type { FastifySchemaCompiler } from 'fastify'
import type { z } from 'zod'
import type { FieldError } from '../errors.js'

/** The spec names zod-3 issue codes; zod 4 renamed some. */
const zod3Codes: Record<string, string> = {
  invalid_format: 'invalid_string',
  invalid_value: 'invalid_enum_value',
  invalid_element: 'invalid_type',
  invalid_key: 'invalid_type',
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && Number.isNaN(value)) return 'nan'
  return typeof value
}

export function toFieldErrors(issues: readonly z.core.$ZodIssue[], root?: unknown): FieldError[] {
  return issues.map((issue) => {
    const error: FieldError = {
      field: issue.path.map(String).join('.'),
      message: issue.message,
      code: zod3Codes[issue.code] ?? issue.code,
    }
    if (issue.code === 'invalid_type') {
      error.received = 'input' in issue ? describeType(issue.input) : describeType(valueAt(root, issue.path))
    }
    return error
  })
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

export type RequestPart = 'body' | 'querystring' | 'params' | 'headers'

/** Thrown (through fastify) when a request part fails its zod schema; `http/errors.ts` shapes the answer. */
export class RequestValidationError extends Error {
  constructor(
    readonly part: RequestPart,
    readonly fieldErrors: FieldError[],
  ) {
    super(`Invalid ${part}`)
  }
}

/**
 * A body that was not sent (fastify hands it over as `null`, as it does a JSON `null`) and that the schema refuses is
 * read as `{}`, so the answer names the missing fields instead of a missing body.
 */
function parseRequestPart(schema: z.ZodType, httpPart: string | undefined, data: unknown) {
  const result = schema.safeParse(data, { reportInput: true })
  if (result.success || httpPart !== 'body' || (data !== null && data !== undefined)) return { result, data }
  return { result: schema.safeParse({}, { reportInput: true }), data: {} }
}

export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (input) => {
    const { result, data } = parseRequestPart(schema, httpPart, input)
    if (result.success) return { value: result.data }
    return {
      error: new RequestValidationError((httpPart ?? 'body') as RequestPart, toFieldErrors(result.error.issues, data)),
    }
  }
