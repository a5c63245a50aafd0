import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { FieldError } from '../errors.js'
import { type RequestPart, RequestValidationError } from './validation.js'

/*
 * PostgreSQL stores neither the NUL character (refused in text and jsonb) nor an unpaired UTF-16 surrogate
 * (it has no UTF-8 form; jsonb refuses `\ud800`). Either reached the database as a 500 on every route that
 * stores or searches text, so every request is checked once, here, before any route sees it.
 */

const nul = String.fromCharCode(0)
// Without the `u` flag a class matches UTF-16 code units: a high surrogate not followed by a low one, or a
// low one not preceded by a high one.
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Why PostgreSQL could not store `text`, or undefined when it can. */
export function unstorableTextReason(text: string): string | undefined {
  if (text.includes(nul)) return 'must not contain the NUL character (U+0000)'
  if (loneSurrogate.test(text)) return 'must not contain an unpaired UTF-16 surrogate (such as \\ud800)'
  return undefined
}

/** Enough to name every bad field of a real request; a body of thousands is answered with the first ones. */
const maxErrors = 100

/** A value still to visit; its path is kept as a link to its parent so deep nesting costs no copies. */
type Pending = { value: unknown; key?: string | number; parent?: Pending }

function pathOf(entry: Pending): string {
  const keys: (string | number)[] = []
  for (let at: Pending | undefined = entry; at?.key !== undefined; at = at.parent) keys.push(at.key)
  return keys.reverse().join('.')
}

/**
 * Every string in a parsed body, query or parameter set, keys included, as field errors with dot paths
 * (`data.note`, `attachments.0.filename`). Iterative, so a deeply nested body cannot overflow the stack.
 */
function findUnstorableText(root: unknown): FieldError[] {
  const errors: FieldError[] = []
  const pending: Pending[] = [{ value: root }]
  const report = (entry: Pending, message: string) =>
    errors.push({ field: pathOf(entry), message, code: 'invalid_string' })
  while (pending.length > 0 && errors.length < maxErrors) {
    const entry = pending.pop() as Pending
    const { value } = entry
    if (typeof value === 'string') {
      const reason = unstorableTextReason(value)
      if (reason) report(entry, reason)
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        pending.push({ value: value[index], key: index, parent: entry })
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value)
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string
        const child: Pending = { value: (value as Record<string, unknown>)[key], key, parent: entry }
        const reason = unstorableTextReason(key)
        if (reason) report(child, `key ${reason}`)
        else pending.push(child)
      }
    }
  }
  return errors.slice(0, maxErrors)
}

const parts: [RequestPart, (request: FastifyRequest) => unknown][] = [
  ['params', (request) => request.params],
  ['querystring', (request) => request.query],
  ['body', (request) => request.body],
]

/**
 * Refuses such text wherever it arrives, as a validation failure of its part: 422 for the body and path
 * parameters, 400 for query parameters (the API's rule for each part; see `http/errors.ts`). Runs before each
 * route's own validation and hooks, and after auth, so an anonymous caller learns nothing more.
 */
export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [part, read] of parts) {
      const errors = findUnstorableText(read(request))
      if (errors.length > 0) throw new RequestValidationError(part, errors)
    }
  })
}
