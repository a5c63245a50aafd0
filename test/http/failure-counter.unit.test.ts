import { describe, expect, it } from 'vitest'
import { clientOfAddress } from '../../src/http/failed-auth-limit.js'
import { memoryFailureCounter } from '../../src/http/failure-counter.js'

describe('failure counter in this process', () => {
  it('counts per client within a window and starts again once the window has passed', async () => {
    let now = 1_000
    const counter = memoryFailureCounter(() => now)
    expect(await counter.record('a', 60_000)).toEqual({ count: 1, resetAtMs: 61_000 })
    expect(await counter.record('b', 60_000)).toEqual({ count: 1, resetAtMs: 61_000 })
    now = 60_999
    expect(await counter.record('a', 60_000)).toEqual({ count: 2, resetAtMs: 61_000 })
    now = 61_000
    expect(await counter.record('a', 60_000)).toEqual({ count: 1, resetAtMs: 121_000 })
  })
})

describe('client of an address', () => {
  it('is the IPv4 address itself, also when it comes IPv4-mapped', () => {
    expect(clientOfAddress('198.51.100.7')).toBe('198.51.100.7')
    expect(clientOfAddress('::ffff:198.51.100.7')).toBe('198.51.100.7')
  })

  it('is the /64 of an IPv6 address, however it is written', () => {
    expect(clientOfAddress('2001:db8:1:2::a')).toBe('2001:db8:1:2::/64')
    expect(clientOfAddress('2001:0db8:0001:0002:ffff:0:0:1')).toBe('2001:db8:1:2::/64')
    expect(clientOfAddress('::1')).toBe('0:0:0:0::/64')
  })
})
