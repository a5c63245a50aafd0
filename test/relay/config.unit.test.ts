import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { configProblems, minimalEnv } from '../helpers/config.js'

const files = { SMTP_RELAY_TLS_KEY_FILE: '/etc/relay/key.pem', SMTP_RELAY_TLS_CERT_FILE: '/etc/relay/cert.pem' }
const production = { MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://mx.example.com:25' }

describe('SMTP relay configuration', () => {
  it('runs by default under capture on unprivileged ports with a self-signed certificate', () => {
    expect(loadConfig(minimalEnv).smtpRelay).toEqual({
      enabled: true,
      host: '0.0.0.0',
      publicHost: 'localhost',
      starttlsPort: 2587,
      tlsPort: 2465,
      tls: 'self-signed',
      maxRecipients: 50,
    })
  })

  it('takes 587 and 465 with a real transport and certificate files', () => {
    const relay = loadConfig({
      ...minimalEnv,
      ...production,
      ...files,
      PUBLIC_URL: 'https://mail.example.com',
    }).smtpRelay
    expect(relay).toEqual({
      enabled: true,
      host: '0.0.0.0',
      publicHost: 'mail.example.com',
      starttlsPort: 587,
      tlsPort: 465,
      tls: { keyFile: '/etc/relay/key.pem', certFile: '/etc/relay/cert.pem' },
      maxRecipients: 50,
    })
  })

  it('stays off with a real transport and no certificate files, and says why', () => {
    expect(loadConfig({ ...minimalEnv, ...production }).smtpRelay).toEqual({
      enabled: false,
      reason: 'MAIL_TRANSPORT is smtp and SMTP_RELAY_TLS_KEY_FILE, SMTP_RELAY_TLS_CERT_FILE are unset',
    })
    expect(loadConfig({ ...minimalEnv, MAIL_TRANSPORT: 'ses' }).smtpRelay).toMatchObject({ enabled: false })
  })

  it('is off when SMTP_RELAY_ENABLED is false, whatever else is set', () => {
    expect(loadConfig({ ...minimalEnv, ...files, SMTP_RELAY_ENABLED: 'false' }).smtpRelay).toEqual({
      enabled: false,
      reason: 'SMTP_RELAY_ENABLED is false',
    })
  })

  it('takes its ports, bind address, public host and recipient limit from the environment', () => {
    const relay = loadConfig({
      ...minimalEnv,
      SMTP_RELAY_HOST: '127.0.0.1',
      SMTP_RELAY_PORT: '0',
      SMTP_RELAY_TLS_PORT: '10465',
      SMTP_RELAY_PUBLIC_HOST: 'smtp.example.com',
      SMTP_RELAY_MAX_RECIPIENTS: '1000',
    }).smtpRelay
    expect(relay).toMatchObject({
      enabled: true,
      host: '127.0.0.1',
      starttlsPort: 0,
      tlsPort: 10465,
      publicHost: 'smtp.example.com',
      maxRecipients: 1000,
    })
  })

  it('takes the certificate files only as a pair', () => {
    const expected = ['SMTP_RELAY_TLS_KEY_FILE, SMTP_RELAY_TLS_CERT_FILE: set both or neither']
    expect(configProblems({ SMTP_RELAY_TLS_KEY_FILE: '/etc/relay/key.pem' })).toEqual(expected)
    expect(configProblems({ SMTP_RELAY_TLS_CERT_FILE: '/etc/relay/cert.pem' })).toEqual(expected)
    expect(configProblems(files)).toEqual([])
  })

  it('names a recipient limit out of 1 to 1,000 and ports out of range', () => {
    expect(configProblems({ SMTP_RELAY_MAX_RECIPIENTS: '0' })).toEqual([
      expect.stringMatching(/^SMTP_RELAY_MAX_RECIPIENTS: /),
    ])
    expect(configProblems({ SMTP_RELAY_MAX_RECIPIENTS: '1001' })).toEqual([
      expect.stringMatching(/^SMTP_RELAY_MAX_RECIPIENTS: /),
    ])
    expect(configProblems({ SMTP_RELAY_MAX_RECIPIENTS: '1.5' })).toEqual([
      expect.stringMatching(/^SMTP_RELAY_MAX_RECIPIENTS: /),
    ])
    expect(configProblems({ SMTP_RELAY_PORT: '65536', SMTP_RELAY_TLS_PORT: '-1' })).toEqual([
      expect.stringMatching(/^SMTP_RELAY_PORT: /),
      expect.stringMatching(/^SMTP_RELAY_TLS_PORT: /),
    ])
    expect(configProblems({ SMTP_RELAY_MAX_RECIPIENTS: '1' })).toEqual([])
    expect(configProblems({ SMTP_RELAY_MAX_RECIPIENTS: '1000' })).toEqual([])
  })
})
