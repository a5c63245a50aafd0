import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import type { BusEvent } from '../../src/events/bus.js'
import { judge } from '../../src/modules/reputation/guard.js'
import { percent } from '../../src/modules/reputation/rates.js'
import { countReputationEvents } from '../../src/modules/reputation/rollup.js'

const thresholds = { enabled: true, bounceRatePercent: 8, complaintRatePercent: 0.3, minSent: 100 }

function event(projectId: string, name: string, at: string, data: Record<string, unknown> = {}): BusEvent {
  return { id: `${name}-${at}`, projectId, contactId: null, name, data, createdAt: new Date(at) }
}

describe('countReputationEvents', () => {
  it('counts sends, permanent bounces and complaints per project and UTC hour, and nothing else', () => {
    const a = '00000000-0000-4000-8000-00000000000a'
    const b = '00000000-0000-4000-8000-00000000000b'
    const deltas = countReputationEvents([
      event(b, 'email.sent', '2026-11-22T10:59:59.999Z'),
      event(a, 'email.sent', '2026-11-22T10:00:00.000Z'),
      event(a, 'email.sent', '2026-11-22T10:30:00.000Z'),
      event(a, 'email.bounce', '2026-11-22T10:31:00.000Z', { bounceType: 'Permanent' }),
      event(a, 'email.bounce', '2026-11-22T10:32:00.000Z', { bounceType: 'Transient', transientBounce: true }),
      event(a, 'email.complaint', '2026-11-22T11:00:00.000Z'),
      event(a, 'email.open', '2026-11-22T10:40:00.000Z'),
      event(a, 'signed-up', '2026-11-22T10:40:00.000Z'),
    ])
    expect(deltas).toEqual([
      { projectId: a, hour: '2026-11-22T10:00:00.000Z', sent: 2, bounces: 1, complaints: 0 },
      { projectId: a, hour: '2026-11-22T11:00:00.000Z', sent: 0, bounces: 0, complaints: 1 },
      { projectId: b, hour: '2026-11-22T10:00:00.000Z', sent: 1, bounces: 0, complaints: 0 },
    ])
  })

  it('a batch without reputation events adds nothing', () => {
    expect(countReputationEvents([event('p', 'email.delivery', '2026-11-22T10:00:00Z')])).toEqual([])
  })
})

describe('judge', () => {
  it('pauses at the thresholds, not below, and never under the minimum volume', () => {
    expect(judge({ sent: 100, bounces: 7, complaints: 0 }, thresholds)).toBeUndefined()
    expect(judge({ sent: 100, bounces: 8, complaints: 0 }, thresholds)?.reason).toBe('BOUNCE_RATE')
    expect(judge({ sent: 1000, bounces: 0, complaints: 2 }, thresholds)).toBeUndefined()
    expect(judge({ sent: 1000, bounces: 0, complaints: 3 }, thresholds)?.reason).toBe('COMPLAINT_RATE')
    expect(judge({ sent: 99, bounces: 99, complaints: 99 }, thresholds)).toBeUndefined()
  })

  it('names the bounce rate first when both are crossed', () => {
    expect(judge({ sent: 100, bounces: 50, complaints: 50 }, thresholds)).toEqual({
      reason: 'BOUNCE_RATE',
      message: '7-day bounce rate 50.00% (50 permanent bounces of 100 emails) reached the 8% limit',
    })
  })

  it('rates are percentages, 0 when nothing was sent', () => {
    expect(percent(2, 25)).toBe(8)
    expect(percent(3, 1000)).toBe(0.3)
    expect(percent(5, 0)).toBe(0)
  })
})

describe('configuration', () => {
  const base = { SECRET: 'x'.repeat(32), DATA_DIR: '/tmp/mailroom-unused' }

  it('defaults to 8 %, 0.3 % and 100 emails, and reads each from the environment', () => {
    expect(loadConfig(base).reputation).toEqual(thresholds)
    expect(
      loadConfig({
        ...base,
        REPUTATION_GUARD: 'false',
        REPUTATION_BOUNCE_RATE_PERCENT: '5',
        REPUTATION_COMPLAINT_RATE_PERCENT: '0.1',
        REPUTATION_MIN_SENT: '500',
      }).reputation,
    ).toEqual({ enabled: false, bounceRatePercent: 5, complaintRatePercent: 0.1, minSent: 500 })
  })

  it('refuses values that are not rates or counts', () => {
    expect(() => loadConfig({ ...base, REPUTATION_BOUNCE_RATE_PERCENT: '150' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...base, REPUTATION_MIN_SENT: '0' })).toThrow(/REPUTATION_MIN_SENT/)
  })
})
