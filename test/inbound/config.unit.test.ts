import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, unsubscribeMailDomain } from '../../src/config.js'

const base = { SECRET: 'a-secret-of-at-least-thirty-two-characters', DATA_DIR: '/tmp/mailroom-config-test' }

describe('inbound configuration', () => {
  it('leaves the receiver off and offers no mailto unsubscribe by default', () => {
    const config = loadConfig(base)
    expect(config.inboundSmtpPort).toBeUndefined()
    expect(config.inboundSmtpHost).toBe('0.0.0.0')
    expect(unsubscribeMailDomain(config)).toBeUndefined()
  })

  it('offers the mailto form only while the receiver that reads it is on', () => {
    expect(unsubscribeMailDomain(loadConfig({ ...base, INBOUND_DOMAIN: 'In.Example.com' }))).toBeUndefined()
    const config = loadConfig({ ...base, INBOUND_DOMAIN: 'In.Example.com', INBOUND_SMTP_PORT: '2525' })
    expect(config.inboundSmtpPort).toBe(2525)
    expect(unsubscribeMailDomain(config)).toBe('in.example.com')
  })

  it('takes STARTTLS files only as a pair', () => {
    const tls = { INBOUND_TLS_KEY_FILE: '/etc/mx/key.pem', INBOUND_TLS_CERT_FILE: '/etc/mx/cert.pem' }
    expect(loadConfig({ ...base, ...tls }).inboundTls).toEqual({
      keyFile: '/etc/mx/key.pem',
      certFile: '/etc/mx/cert.pem',
    })
    expect(() => loadConfig({ ...base, INBOUND_TLS_KEY_FILE: '/etc/mx/key.pem' })).toThrow(ConfigError)
  })

  it('names every bad inbound variable', () => {
    expect(() => loadConfig({ ...base, INBOUND_SMTP_PORT: '70000', INBOUND_DOMAIN: 'not a domain' })).toThrow(
      ConfigError,
    )
    try {
      loadConfig({ ...base, INBOUND_SMTP_PORT: '70000', INBOUND_DOMAIN: 'not a domain' })
    } catch (err) {
      expect((err as ConfigError).problems.map((problem) => problem.split(':')[0])).toEqual([
        'INBOUND_SMTP_PORT',
        'INBOUND_DOMAIN',
      ])
    }
  })
})
