import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { configProblems, minimalEnv } from '../helpers/config.js'

describe('the system sender configuration', () => {
  it('takes an address or a named address, and who signs its mail', () => {
    const config = loadConfig({
      ...minimalEnv,
      SYSTEM_EMAIL_FROM: 'Team <team@example.com>',
      SYSTEM_EMAIL_DKIM: 'relay',
    })
    expect([config.systemEmailFrom, config.systemEmailDkim]).toEqual([
      { email: 'team@example.com', name: 'Team' },
      'relay',
    ])
    expect(loadConfig({ ...minimalEnv, SYSTEM_EMAIL_FROM: 'team@example.com' }).systemEmailDkim).toBe('mailroom')
  })

  it('refuses an address without @, named or not, and an unknown signer, naming the variable', () => {
    for (const from of ['no-reply', 'Team <no-reply>', 'no-reply@']) {
      expect(configProblems({ SYSTEM_EMAIL_FROM: from })).toEqual([
        'SYSTEM_EMAIL_FROM: expected "Name <address>" or an address',
      ])
    }
    expect(configProblems({ SYSTEM_EMAIL_DKIM: 'none' })).toEqual([expect.stringMatching(/^SYSTEM_EMAIL_DKIM: /)])
  })
})
