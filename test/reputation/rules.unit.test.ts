import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import type { BusEvent } from '../../src/events/bus.js'
import { ceilingLimits, judge, pausesDue, warningLimits } from '../../src/modules/reputation/guard.js'
import { percent } from '../../src/modules/reputation/rates.js'
import { countReputationEvents } from '../../src/modules/reputation/rollup.js'

const thresholds = {
  enabled: true,
  bounceRatePercent: 8,
  complaintRatePercent: 0.3,
  minSent: 100,
  ceilingBounceRatePercent: 10,
  ceilingComplaintRatePercent: 0.5,
}
const warning = warningLimits(thresholds)
const ceiling = ceilingLimits(thresholds)

function event(projectId: string, name: string, at: string, data: Record<string, unknown> = {}): BusEvent {
  return { id: `${name}-${at}`, projectId, contactId: null, name, data, createdAt: new Date(at) }
}

describe('countReputationEvents', () => {
  const zero = { marketingSent: 0, marketingBounces: 0, marketingComplaints: 0 }

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
      { projectId: a, hour: '2026-11-22T10:00:00.000Z', sent: 2, bounces: 1, complaints: 0, ...zero },
      { projectId: a, hour: '2026-11-22T11:00:00.000Z', sent: 0, bounces: 0, complaints: 1, ...zero },
      { projectId: b, hour: '2026-11-22T10:00:00.000Z', sent: 1, bounces: 0, complaints: 0, ...zero },
    ])
  })

  it("counts the marketing stream's share apart, within the totals", () => {
    const a = '00000000-0000-4000-8000-00000000000a'
    const events = [
      event(a, 'email.sent', '2026-11-22T10:00:00.000Z', { n: 1 }),
      event(a, 'email.sent', '2026-11-22T10:01:00.000Z', { n: 2 }),
      event(a, 'email.sent', '2026-11-22T10:02:00.000Z', { n: 3 }),
      event(a, 'email.bounce', '2026-11-22T10:03:00.000Z', { bounceType: 'Permanent', n: 4 }),
      event(a, 'email.bounce', '2026-11-22T10:04:00.000Z', { bounceType: 'Permanent', n: 5 }),
      event(a, 'email.complaint', '2026-11-22T10:05:00.000Z', { n: 6 }),
    ]
    const marketing = new Set([1, 2, 4, 6])
    expect(countReputationEvents(events, (e) => marketing.has(Number(e.data.n)))).toEqual([
      {
        projectId: a,
        hour: '2026-11-22T10:00:00.000Z',
        sent: 3,
        bounces: 2,
        complaints: 1,
        marketingSent: 2,
        marketingBounces: 1,
        marketingComplaints: 1,
      },
    ])
  })

  it('a batch without reputation events adds nothing', () => {
    expect(countReputationEvents([event('p', 'email.delivery', '2026-11-22T10:00:00Z')])).toEqual([])
  })
})

describe('judge', () => {
  it('pauses at the thresholds, not below, and never under the minimum volume', () => {
    expect(judge({ sent: 100, bounces: 7, complaints: 0 }, warning)).toBeUndefined()
    expect(judge({ sent: 100, bounces: 8, complaints: 0 }, warning)?.reason).toBe('BOUNCE_RATE')
    expect(judge({ sent: 1000, bounces: 0, complaints: 2 }, warning)).toBeUndefined()
    expect(judge({ sent: 1000, bounces: 0, complaints: 3 }, warning)?.reason).toBe('COMPLAINT_RATE')
    expect(judge({ sent: 99, bounces: 99, complaints: 99 }, warning)).toBeUndefined()
  })

  it('names the bounce rate first when both are crossed', () => {
    expect(judge({ sent: 100, bounces: 50, complaints: 50 }, warning)).toEqual({
      reason: 'BOUNCE_RATE',
      message: '7-day bounce rate 50.00% (50 permanent bounces of 100 emails) reached the 8% limit',
    })
  })

  it('names the stream and the ceiling', () => {
    expect(judge({ sent: 100, bounces: 9, complaints: 0 }, warning, 'marketing')?.message).toBe(
      '7-day marketing bounce rate 9.00% (9 permanent bounces of 100 marketing emails) reached the 8% limit',
    )
    expect(judge({ sent: 100, bounces: 9, complaints: 0 }, ceiling, 'transactional')).toBeUndefined()
    expect(judge({ sent: 1000, bounces: 0, complaints: 5 }, ceiling, 'transactional')?.message).toBe(
      '7-day transactional complaint rate 0.50% (5 complaints of 1000 transactional emails) reached the 0.5% ceiling',
    )
  })

  it('rates are percentages, 0 when nothing was sent', () => {
    expect(percent(2, 25)).toBe(8)
    expect(percent(3, 1000)).toBe(0.3)
    expect(percent(5, 0)).toBe(0)
  })
})

describe('pausesDue', () => {
  const row = (marketing: [number, number], transactional: [number, number], marketingPaused = false) => ({
    project_id: 'p',
    marketing_paused: marketingPaused,
    marketing_sent: marketing[0],
    marketing_bounces: marketing[1],
    marketing_complaints: 0,
    transactional_sent: transactional[0],
    transactional_bounces: transactional[1],
    transactional_complaints: 0,
  })
  const scopes = (rows: ReturnType<typeof row>[]) => pausesDue(rows, thresholds).map((pause) => pause.scope)

  it('pauses marketing at the warning threshold and all sending only at the ceiling, each on its own rates', () => {
    expect(scopes([row([100, 9], [1000, 0])])).toEqual(['MARKETING'])
    // Transactional mail between the warning and the ceiling keeps flowing, and does not pause marketing.
    expect(scopes([row([100, 0], [100, 9])])).toEqual([])
    expect(scopes([row([100, 0], [100, 10])])).toEqual(['PROJECT'])
    expect(scopes([row([100, 50], [100, 10])])).toEqual(['MARKETING', 'PROJECT'])
    // A marketing stream far over its limit never pauses transactional mail: its bounces are not transactional.
    expect(scopes([row([100, 90], [100, 1])])).toEqual(['MARKETING'])
  })

  it('does not pause a stream already paused, nor one under the minimum volume', () => {
    expect(scopes([row([100, 9], [0, 0], true)])).toEqual([])
    expect(scopes([row([99, 50], [99, 50])])).toEqual([])
  })
})

describe('configuration', () => {
  const base = { SECRET: 'x'.repeat(32), DATA_DIR: '/tmp/mailroom-unused' }

  it('defaults to 8 %, 0.3 %, a 10 % and 0.5 % ceiling and 100 emails, and reads each from the environment', () => {
    expect(loadConfig(base).reputation).toEqual(thresholds)
    expect(
      loadConfig({
        ...base,
        REPUTATION_GUARD: 'false',
        REPUTATION_BOUNCE_RATE_PERCENT: '5',
        REPUTATION_COMPLAINT_RATE_PERCENT: '0.1',
        REPUTATION_CEILING_BOUNCE_RATE_PERCENT: '7',
        REPUTATION_CEILING_COMPLAINT_RATE_PERCENT: '0.2',
        REPUTATION_MIN_SENT: '500',
      }).reputation,
    ).toEqual({
      enabled: false,
      bounceRatePercent: 5,
      complaintRatePercent: 0.1,
      ceilingBounceRatePercent: 7,
      ceilingComplaintRatePercent: 0.2,
      minSent: 500,
    })
  })

  it('an unset ceiling is never below the warning thresholds', () => {
    const raised = loadConfig({
      ...base,
      REPUTATION_BOUNCE_RATE_PERCENT: '12',
      REPUTATION_COMPLAINT_RATE_PERCENT: '0.6',
    }).reputation
    expect(raised).toMatchObject({ ceilingBounceRatePercent: 12, ceilingComplaintRatePercent: 0.6 })
  })

  it('refuses values that are not rates or counts, and a ceiling below its warning threshold', () => {
    expect(() => loadConfig({ ...base, REPUTATION_BOUNCE_RATE_PERCENT: '150' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...base, REPUTATION_MIN_SENT: '0' })).toThrow(/REPUTATION_MIN_SENT/)
    expect(() => loadConfig({ ...base, REPUTATION_CEILING_BOUNCE_RATE_PERCENT: '5' })).toThrow(
      /REPUTATION_CEILING_BOUNCE_RATE_PERCENT: must not be below REPUTATION_BOUNCE_RATE_PERCENT/,
    )
    expect(() => loadConfig({ ...base, REPUTATION_CEILING_COMPLAINT_RATE_PERCENT: 'x' })).toThrow(
      /REPUTATION_CEILING_COMPLAINT_RATE_PERCENT/,
    )
  })
})
