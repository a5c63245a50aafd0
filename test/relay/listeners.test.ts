import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { SmtpRelayConfig } from '../../src/config.js'
import { startRelayListeners } from '../../src/modules/relay/listeners.js'
import { captureLog } from '../helpers/log-capture.js'
import { startTestServer } from '../helpers/server.js'
import { swaks } from './clients.js'
import { goodKey, recordingHandler } from './harness.js'
import { buildMessage, writeMessage } from './messages.js'

const relayOn: SmtpRelayConfig = {
  enabled: true,
  host: '127.0.0.1',
  publicHost: 'relay.test',
  starttlsPort: 0,
  tlsPort: 0,
  tls: 'self-signed',
  maxRecipients: 5,
}

async function serverWith(smtpRelay: SmtpRelayConfig) {
  const log = captureLog()
  const server = await startTestServer({ worker: false, config: { smtpRelay, logLevel: 'info' }, log: log.stream })
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= server.close()
    return closing
  }
  onTestFinished(close)
  return { server, log, close }
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', () => resolve(true))
  })
}

describe('the relay in an API process', () => {
  it('listens on both ports with the self-signed certificate, says where, and closes with the context', async () => {
    const { server, log, close } = await serverWith(relayOn)
    const recorder = recordingHandler()
    const relay = await startRelayListeners(server.ctx, recorder.handler)
    if (!relay) throw new Error('the relay did not start')
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'SMTP relay listening',
        host: '127.0.0.1',
        publicHost: 'relay.test',
        starttlsPort: relay.starttlsPort,
        tlsPort: relay.tlsPort,
      }),
    )
    expect(existsSync(path.join(server.config.dataDir, 'smtp-relay', 'cert.pem'))).toBe(true)
    const result = await swaks({
      port: relay.starttlsPort,
      security: 'starttls',
      login: { mechanism: 'PLAIN', username: 'plunk', password: goodKey },
      from: 'app@sender.test',
      to: ['user@example.com'],
      messageFile: writeMessage(server.config.dataDir, 'message.eml', buildMessage({ text: ['Hello'] })),
    })
    expect(result.stdout).toMatch(/^<- {2}220 relay\.test ESMTP Mailroom submission$/m)
    expect(result.stdout).toMatch(/^<~ {2}250 SIZE 41943040$/m)
    expect(result.stdout).toMatch(/^<~ {2}250 2\.0\.0 Queued as /m)
    expect(recorder.accepted()).toHaveLength(1)

    // The API process's shutdown (ctx.close) closes the relay before the database.
    await close()
    expect(await refusesConnections(relay.starttlsPort)).toBe(true)
    expect(await refusesConnections(relay.tlsPort)).toBe(true)
  })

  it('stays off and logs why: a warning when certificates are missing, information when turned off', async () => {
    const missing = await serverWith({
      enabled: false,
      reason: 'MAIL_TRANSPORT is smtp and SMTP_RELAY_TLS_KEY_FILE, SMTP_RELAY_TLS_CERT_FILE are unset',
    })
    expect(await startRelayListeners(missing.server.ctx, recordingHandler().handler)).toBeUndefined()
    expect(missing.log.lines()).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'SMTP relay off',
        reason: expect.stringMatching(/^MAIL_TRANSPORT is smtp/),
      }),
    )
    const off = await serverWith({ enabled: false, reason: 'SMTP_RELAY_ENABLED is false' })
    expect(await startRelayListeners(off.server.ctx, recordingHandler().handler)).toBeUndefined()
    expect(off.log.lines()).toContainEqual(
      expect.objectContaining({ level: 30, msg: 'SMTP relay off', reason: 'SMTP_RELAY_ENABLED is false' }),
    )
  })
})
