import { expect } from 'vitest'

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
