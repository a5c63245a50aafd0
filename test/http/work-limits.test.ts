import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countBuckets } from '../../src/modules/analytics/period.js'
import { badQueryBody } from '../helpers/errors.js'
import { type Account, callAs, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

/** Query parameters that size work are refused (or bounded) before the work, however large they are. */

let server: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
})
afterAll(async () => {
  await server.close()
})

const firstYear = '0001-01-01T00:00:00Z'
const lastYear = '9999-12-31T23:59:59Z'

describe('analytics ranges', () => {
  it('a timeseries from year 1 to 9999 by hour is refused before a single bucket is built', async () => {
    const heapBefore = process.memoryUsage().heapUsed
    const response = await callAs(server, account)(
      'GET',
      `/analytics/timeseries?granularity=hour&from=${firstYear}&to=${lastYear}`,
    )
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual(badQueryBody('from', 'too_big'))
    expect(response.json().error.errors[0].message).toBe(
      'At most 744 hour buckets per request; shorten the range or use daily buckets',
    )
    // 88M bucket dates would take gigabytes; a refusal takes next to nothing.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(50 * 1024 * 1024)
  })

  it('a timeseries over centuries by day (the default for long ranges) is refused the same way', async () => {
    const response = await callAs(server, account)('GET', `/analytics/timeseries?from=1826-01-01T00:00:00Z`)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual(badQueryBody('from', 'too_big'))
  })

  it('the largest allowed timeseries still answers every bucket', async () => {
    const response = await callAs(server, account)(
      'GET',
      '/analytics/timeseries?granularity=hour&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z',
    )
    expect(response.statusCode).toBe(200)
    expect(response.json().data).toHaveLength(744)
  })

  it('top events over year 1 to 9999 answers (its previous period stays inside what PostgreSQL stores)', async () => {
    const to = '9999-12-31T00:00:00Z'
    const response = await callAs(server, account)('GET', `/analytics/top-events?from=${firstYear}&to=${to}`)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      from: '0001-01-01T00:00:00.000Z',
      to: '9999-12-31T00:00:00.000Z',
      events: [],
    })
  })

  it('countBuckets is exact for whole buckets and rounds a partial one up', () => {
    const from = new Date('2026-01-01T00:00:00Z')
    expect(countBuckets(from, new Date('2026-01-02T00:00:00Z'), 'hour')).toBe(24)
    expect(countBuckets(from, new Date('2026-01-02T00:00:01Z'), 'day')).toBe(2)
    expect(countBuckets(new Date(firstYear), new Date(lastYear), 'hour')).toBe(87_649_416)
  })
})
