import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'

const base = { SECRET: 'a-secret-of-at-least-thirty-two-characters', DATA_DIR: '/tmp/mailroom-config-test' }

describe('TRUST_PROXY', () => {
  it('trusts no proxy by default, every hop with true, or the listed proxies only', () => {
    expect(loadConfig(base).trustProxy).toBe(false)
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy).toBe(false)
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy).toBe(true)
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
    ])
  })

  it('refuses anything else, naming the variable', () => {
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'nginx.internal' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'nginx.internal' })).toThrow(/TRUST_PROXY: expected true, false/)
  })
})
