import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { likePatternSql } from '../../src/modules/webhooks/event-types.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(() => server.close())

/** Whether the fan-out's SQL matches `name` against `pattern`. */
async function matches(pattern: string, name: string): Promise<boolean> {
  const result = await server.ctx.db.execute<{ hit: boolean }>(
    sql`SELECT ${name}::text LIKE ${likePatternSql(sql`${pattern}::text`)} AS hit`,
  )
  return result.rows[0]?.hit ?? false
}

describe('event-type patterns in the fan-out', () => {
  it.each([
    ['email.*', 'email.sent', true],
    ['email.*', 'email.machine_open', true],
    ['email.*', 'emails.sent', false],
    ['contact.*', 'email.sent', false],
    ['segment.*', 'segment.vip-customers.entry', true],
    ['segment.*.exit', 'segment.vip.exit', true],
    ['segment.*.exit', 'segment.vip.entry', false],
    ['*', 'anything at all', true],
    ['order.paid', 'order.paid', true],
    ['order.paid', 'order.paid.twice', false],
    ['order.paid', 'Order.Paid', false],
    // `_` and `%` are themselves, not LIKE's wildcards, and a backslash escapes nothing.
    ['order_paid', 'orderXpaid', false],
    ['order_paid', 'order_paid', true],
    ['100%', '100% sure', false],
    ['100%', '100%', true],
    ['a\\*', 'a\\b', true],
    ['a\\b', 'a\\b', true],
  ])('%s against %s: %s', async (pattern, name, expected) => {
    expect(await matches(pattern, name)).toBe(expected)
  })
})
