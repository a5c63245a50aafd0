import { describe, expect, it } from 'vitest'
import { newTimeOrderedUuid } from '../../src/db/time-ordered-uuid.js'

describe('newTimeOrderedUuid', () => {
  it('is a uuid whose first 48 bits are the current time in milliseconds', () => {
    const before = Date.now()
    const id = newTimeOrderedUuid()
    const after = Date.now()
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const millis = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
    expect(millis).toBeGreaterThanOrEqual(before)
    expect(millis).toBeLessThanOrEqual(after)
  })

  it('sorts ids made later after earlier ones, and never repeats one', async () => {
    const earlier = Array.from({ length: 1_000 }, () => newTimeOrderedUuid())
    await new Promise((resolve) => setTimeout(resolve, 5))
    const later = Array.from({ length: 1_000 }, () => newTimeOrderedUuid())
    const latestEarlier = [...earlier].sort().at(-1) ?? ''
    expect(later.every((id) => id > latestEarlier)).toBe(true)
    expect(new Set([...earlier, ...later]).size).toBe(2_000)
  })
})
