import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'

const base = { SECRET: 'a-secret-of-at-least-thirty-two-characters', DATA_DIR: '/tmp/mailroom-config-test' }

/** The message a refused setting starts with, as the CLI prints it. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ ...base, ...env })
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.join('\n')
    throw err
  }
  throw new Error(`${JSON.stringify(env)} was accepted`)
}

describe('process settings', () => {
  it('composes on one thread per core by default, on the main thread with COMPOSE_THREADS=0', () => {
    expect(loadConfig(base).composeThreads).toBe(availableParallelism())
    expect(loadConfig({ ...base, COMPOSE_THREADS: '0' }).composeThreads).toBe(0)
    expect(loadConfig({ ...base, COMPOSE_THREADS: '3' }).composeThreads).toBe(3)
  })

  it('refuses wrong API keys beyond 20 per minute per address by default; FAILED_AUTH_LIMIT_PER_MINUTE sets it', () => {
    expect(loadConfig(base).failedAuthLimitPerMinute).toBe(20)
    expect(loadConfig({ ...base, FAILED_AUTH_LIMIT_PER_MINUTE: '100' }).failedAuthLimitPerMinute).toBe(100)
    for (const value of ['0', '-1', '2.5', 'many']) {
      expect(refusal({ FAILED_AUTH_LIMIT_PER_MINUTE: value })).toMatch(/^FAILED_AUTH_LIMIT_PER_MINUTE: /)
    }
  })

  it('refuses a negative, fractional or non-numeric thread count, naming the variable', () => {
    for (const value of ['-1', '1.5', 'two']) expect(refusal({ COMPOSE_THREADS: value })).toMatch(/^COMPOSE_THREADS: /)
  })

  it('leases for 30 s and beats every 20 s by default; each length is a setting', () => {
    expect(loadConfig(base).crashRecovery).toEqual({
      outboxLeaseSeconds: 30,
      jobHeartbeatSeconds: 20,
      workflowExecutionLeaseSeconds: 30,
      webhookLeaseSeconds: 30,
    })
    const short = loadConfig({
      ...base,
      OUTBOX_LEASE_SECONDS: '3',
      JOB_HEARTBEAT_SECONDS: '10',
      WORKFLOW_EXECUTION_LEASE_SECONDS: '12',
      WEBHOOK_LEASE_SECONDS: '15',
    })
    expect(short.crashRecovery).toEqual({
      outboxLeaseSeconds: 3,
      jobHeartbeatSeconds: 10,
      workflowExecutionLeaseSeconds: 12,
      webhookLeaseSeconds: 15,
    })
  })

  it('refuses a zero, negative, fractional or non-numeric lease, naming the variable', () => {
    for (const name of [
      'OUTBOX_LEASE_SECONDS',
      'JOB_HEARTBEAT_SECONDS',
      'WORKFLOW_EXECUTION_LEASE_SECONDS',
      'WEBHOOK_LEASE_SECONDS',
    ]) {
      for (const value of ['0', '-5', '12.5', 'soon']) {
        expect(refusal({ [name]: value })).toMatch(new RegExp(`^${name}: `))
      }
    }
  })

  it('refuses a heartbeat pg-boss would refuse, and an execution lease a webhook call could outlast', () => {
    expect(refusal({ JOB_HEARTBEAT_SECONDS: '9' })).toBe('JOB_HEARTBEAT_SECONDS: must be at least 10 (pg-boss)')
    expect(refusal({ WORKFLOW_EXECUTION_LEASE_SECONDS: '10' })).toBe(
      'WORKFLOW_EXECUTION_LEASE_SECONDS: must be more than the 10 s a webhook call may take',
    )
  })
})
