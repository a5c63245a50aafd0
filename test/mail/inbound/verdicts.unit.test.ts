import { describe, expect, it } from 'vitest'
import { createResolver } from '../../../src/mail/dns.js'
import { mailauthResolver } from '../../../src/mail/inbound/mailauth-resolver.js'
import { authenticateMessage, dkimVerdictOf, dmarcVerdictOf, spfVerdictOf } from '../../../src/mail/inbound/verdicts.js'
import { startSilentDnsServer } from '../../helpers/silent-dns.js'

describe('verdict values', () => {
  it('SPF: pass is PASS, (soft)fail is FAIL, no or neutral policy is GRAY, errors are PROCESSING_FAILED', () => {
    expect(spfVerdictOf('pass')).toBe('PASS')
    expect(spfVerdictOf('fail')).toBe('FAIL')
    expect(spfVerdictOf('softfail')).toBe('FAIL')
    expect(spfVerdictOf('none')).toBe('GRAY')
    expect(spfVerdictOf('neutral')).toBe('GRAY')
    expect(spfVerdictOf('temperror')).toBe('PROCESSING_FAILED')
    expect(spfVerdictOf('permerror')).toBe('PROCESSING_FAILED')
  })

  it('DKIM: one good signature is enough, unsigned is GRAY, a lookup failure is not called a forgery', () => {
    expect(dkimVerdictOf(['fail', 'pass'])).toBe('PASS')
    expect(dkimVerdictOf(['none'])).toBe('GRAY')
    expect(dkimVerdictOf([])).toBe('GRAY')
    expect(dkimVerdictOf(['fail', 'temperror'])).toBe('PROCESSING_FAILED')
    expect(dkimVerdictOf(['fail', 'policy', 'permerror', 'neutral'])).toBe('FAIL')
  })

  it('DMARC: no author domain or no policy is GRAY', () => {
    expect(dmarcVerdictOf('pass')).toBe('PASS')
    expect(dmarcVerdictOf('fail')).toBe('FAIL')
    expect(dmarcVerdictOf('none')).toBe('GRAY')
    expect(dmarcVerdictOf(undefined)).toBe('GRAY')
    expect(dmarcVerdictOf('temperror')).toBe('PROCESSING_FAILED')
  })
})

describe('authentication when DNS does not answer', () => {
  it('reports PROCESSING_FAILED for SPF and DMARC instead of FAIL, and never throws', async () => {
    const silent = await startSilentDnsServer()
    try {
      const resolver = mailauthResolver(createResolver({ dnsServers: [silent.address] }, { timeoutMs: 200 }))
      const verdicts = await authenticateMessage({
        raw: Buffer.from('From: alice@sender.test\r\nTo: support@inbound.test\r\nSubject: hi\r\n\r\nhello\r\n'),
        ip: '127.0.0.1',
        helo: 'client.sender.test',
        sender: 'alice@sender.test',
        mta: 'mx.inbound.test',
        resolver,
      })
      expect(verdicts).toEqual({
        spfVerdict: 'PROCESSING_FAILED',
        dkimVerdict: 'GRAY',
        dmarcVerdict: 'PROCESSING_FAILED',
      })
    } finally {
      silent.close()
    }
  })
})
