import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { configProblems, minimalEnv } from '../helpers/config.js'

describe('project webhook settings', () => {
  it('retry for about a day, disable after 5 days, keep the log 30 days, by default', () => {
    const config = loadConfig(minimalEnv)
    expect(config.webhooks).toEqual({
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      disableAfterMs: 5 * 86_400_000,
      logRetentionDays: 30,
    })
    expect(config.crashRecovery.webhookLeaseSeconds).toBe(30)
  })

  it('takes a schedule in ms, s, m, h and d', () => {
    const config = loadConfig({ ...minimalEnv, WEBHOOK_RETRY_SCHEDULE: '250ms, 1s,2m,1.5h,1d' })
    expect(config.webhooks.retryScheduleMs).toEqual([250, 1_000, 120_000, 5_400_000, 86_400_000])
  })

  it('names each bad setting', () => {
    expect(configProblems({ WEBHOOK_RETRY_SCHEDULE: '5s,soon' })).toEqual([
      'WEBHOOK_RETRY_SCHEDULE: expected up to 20 comma-separated durations such as 5s,5m,2h',
    ])
    expect(configProblems({ WEBHOOK_RETRY_SCHEDULE: '31d' })).toHaveLength(1)
    expect(configProblems({ WEBHOOK_LEASE_SECONDS: '10' })).toEqual([
      'WEBHOOK_LEASE_SECONDS: must be more than the 10 s a webhook call may take',
    ])
    expect(configProblems({ WEBHOOK_LOG_RETENTION_DAYS: '7' })).toEqual([
      'WEBHOOK_LOG_RETENTION_DAYS: must be at least 8 (replay reaches 7 days back)',
    ])
    expect(configProblems({ WEBHOOK_DISABLE_AFTER_HOURS: '0' })).toHaveLength(1)
  })
})
