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

  it('refuses a negative, fractional or non-numeric thread count, naming the variable', () => {
    for (const value of ['-1', '1.5', 'two']) expect(refusal({ COMPOSE_THREADS: value })).toMatch(/^COMPOSE_THREADS: /)
  })
})
