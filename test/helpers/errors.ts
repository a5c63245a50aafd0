import { expect, it } from 'vitest'
import { callAs, createAccount } from './factories.js'
import type { TestServer } from './server.js'

/** The spec's error body for a bad query string, naming the field in error and its issue code. */
export function badQueryBody(field: string, code: string) {
  return {
    success: false,
    error: {
      code: 'BAD_REQUEST',
      message: 'Invalid query parameters',
      statusCode: 400,
      requestId: expect.any(String),
      errors: [expect.objectContaining({ field, code })],
    },
    timestamp: expect.any(String),
  }
}

/** The spec's error body for a refused request body: these errors, in order, each a field name or its details. */
export function validationErrorBody(errors: (string | { field: string; message?: string; code?: string })[]) {
  return {
    success: false,
    error: {
      code: 'VALIDATION_ERROR',
      message: 'Request validation failed',
      statusCode: 422,
      requestId: expect.any(String),
      errors: errors.map((error) => expect.objectContaining(typeof error === 'string' ? { field: error } : error)),
    },
    timestamp: expect.any(String),
  }
}

/** The spec's 422 for a path parameter that is no uuid (or otherwise invalid): its field and issue code. */
export function badPathBody(field: string, code = 'invalid_string') {
  const body = validationErrorBody([{ field, code }])
  return { ...body, error: { ...body.error, message: 'Invalid path parameters' } }
}

/** One test per `[url, field, code]`: a GET with that query string answers 400 naming the field and code. */
export function itRejectsBadQueries(server: () => TestServer, cases: [url: string, field: string, code: string][]) {
  for (const [url, field, code] of cases) {
    it(`GET ${url}: 400 with the field in error`, async () => {
      const account = await createAccount(server())
      const response = await callAs(server(), account)('GET', url)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual(badQueryBody(field, code))
    })
  }
}
