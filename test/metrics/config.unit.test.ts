import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { configProblems, minimalEnv } from '../helpers/config.js'

describe('metrics configuration', () => {
  it('keeps metrics off by default: no token for the API port, no separate listener', () => {
    expect(loadConfig(minimalEnv).metrics).toEqual({ token: undefined, port: undefined, host: '127.0.0.1' })
  })

  it('takes a token, a port and a bind address', () => {
    const config = loadConfig({
      ...minimalEnv,
      METRICS_TOKEN: 'a-long-enough-metrics-token',
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
    })
    expect(config.metrics).toEqual({ token: 'a-long-enough-metrics-token', port: 9464, host: '0.0.0.0' })
  })

  it('names a token too short to guard anything and a port out of range', () => {
    expect(configProblems({ METRICS_TOKEN: 'short', METRICS_PORT: '70000' })).toEqual([
      'METRICS_TOKEN: must be at least 16 characters',
      expect.stringMatching(/^METRICS_PORT: /),
    ])
  })
})
