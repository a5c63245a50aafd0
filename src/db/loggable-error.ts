import { DrizzleQueryError } from 'drizzle-orm'
import { DatabaseError } from 'pg'

const maxCauseDepth = 8

/**
 * An error as it may be logged: a failed query keeps its statement and PostgreSQL's error code, but loses every
 * value that went with it. drizzle's `DrizzleQueryError` lists all parameters in `params`, in its message and so
 * in its stack (API keys, session ids, password hashes, email bodies, contact data); PostgreSQL's own `detail`
 * and `where` quote the row or the input (`Key (secret_key)=(sk_…) already exists`, `Failing row contains …`).
 * Other errors come back unchanged unless a cause in their chain needed the same treatment.
 */
export function loggableError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return err
  // A circular chain of causes ends here, and what is not looked at is not logged.
  if (depth > maxCauseDepth) return new Error('further causes left out of the log')
  if (err instanceof DrizzleQueryError) return failedQuery(err, depth)
  if (err instanceof DatabaseError) return databaseError(err)
  const cause = loggableError(err.cause, depth + 1)
  const errors = 'errors' in err && Array.isArray(err.errors) ? err.errors : undefined
  const loggableErrors = errors?.map((inner) => loggableError(inner, depth + 1))
  const errorsChanged = loggableErrors?.some((inner, index) => inner !== errors?.[index]) ?? false
  if (cause === err.cause && !errorsChanged) return err
  return copyError(err, {
    replace: { ...(cause !== err.cause ? { cause } : {}), ...(errorsChanged ? { errors: loggableErrors } : {}) },
  })
}

function failedQuery(err: DrizzleQueryError, depth: number): Error {
  const cause = loggableError(err.cause, depth + 1)
  const code = err.cause instanceof DatabaseError ? err.cause.code : undefined
  return copyError(err, {
    message: `Failed query: ${err.query}`,
    drop: ['params'],
    replace: { cause, ...(code ? { code } : {}) },
  })
}

// Data exceptions (SQLSTATE class 22) quote the input they could not take: `invalid input syntax for type uuid: "…"`.
const quotedInput = /"(?:[^"]|"")*"/g

function databaseError(err: DatabaseError): Error {
  const message = err.code?.startsWith('22') ? err.message.replace(quotedInput, '"[redacted]"') : err.message
  return copyError(err, { message, drop: ['detail', 'where', 'internalQuery'] })
}

type Changes = { message?: string; drop?: readonly string[]; replace?: Record<string, unknown> }

/** A copy with the same prototype (so the logged `type` stays), some fields dropped or replaced, and a stack whose
 * first line carries the new message instead of the old one. */
function copyError<T extends Error>(err: T, changes: Changes): T {
  const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(err)
  for (const key of [...(changes.drop ?? []), 'stack', 'message']) delete descriptors[key]
  const copy: T = Object.create(Object.getPrototypeOf(err), descriptors)
  const message = changes.message ?? err.message
  const value = (data: unknown, enumerable = false) => ({ value: data, enumerable, writable: true, configurable: true })
  Object.defineProperty(copy, 'message', value(message))
  Object.defineProperty(copy, 'stack', value(`${err.name}: ${message}${stackFrames(err)}`))
  for (const [key, data] of Object.entries(changes.replace ?? {})) {
    Object.defineProperty(copy, key, value(data, key in descriptors ? descriptors[key]?.enumerable : true))
  }
  return copy
}

/** The stack without its first line, which repeats the message; nothing when that line cannot be found. */
function stackFrames(err: Error): string {
  const stack = err.stack ?? ''
  const header = `${err.name}: ${err.message}`
  return stack.startsWith(header) ? stack.slice(header.length) : ''
}
