import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { watchCertificateFiles } from '../../src/mail/submission/certificates.js'
import { ensureSelfSignedCertificate } from '../../src/mail/submission/self-signed-certificate.js'
import { captureLog } from '../helpers/log-capture.js'
import { createSelfSignedCertificate } from '../helpers/self-signed-certificate.js'
import { type Relay, startRelay } from './harness.js'
import { servedFingerprint } from './raw-smtp.js'

const fingerprintOf = (pem: string | Buffer) => new X509Certificate(pem).fingerprint256
const waitLong = { timeout: 10_000, interval: 50 }

async function expectServed(relay: Relay, fingerprint: string) {
  await vi.waitFor(async () => {
    expect(await servedFingerprint(relay.tlsPort, 'implicit')).toBe(fingerprint)
    expect(await servedFingerprint(relay.starttlsPort, 'starttls')).toBe(fingerprint)
  }, waitLong)
}

describe('the relay certificate', () => {
  it('is the one in the files, and a new pair written over them is served to new connections', async () => {
    const relay = await startRelay()
    await expectServed(relay, fingerprintOf(relay.certificate))
    const next = createSelfSignedCertificate('relay.test')
    writeFileSync(relay.keyFile, next.privateKey)
    writeFileSync(relay.certFile, next.certificate)
    await expectServed(relay, fingerprintOf(next.certificate))
  })

  it('follows files replaced by a rename, as editors do, keeping the old pair while they disagree', async () => {
    const relay = await startRelay()
    const next = createSelfSignedCertificate('relay.test')
    // The certificate lands first: for a moment it does not match the key, and the old pair stays.
    writeFileSync(`${relay.certFile}.new`, next.certificate)
    renameSync(`${relay.certFile}.new`, relay.certFile)
    await vi.waitFor(
      () =>
        expect(relay.log.lines()).toContainEqual(
          expect.objectContaining({ msg: 'SMTP relay: kept the previous TLS certificate, the files do not load' }),
        ),
      waitLong,
    )
    expect(await servedFingerprint(relay.tlsPort, 'implicit')).toBe(fingerprintOf(relay.certificate))
    writeFileSync(`${relay.keyFile}.new`, next.privateKey)
    renameSync(`${relay.keyFile}.new`, relay.keyFile)
    await expectServed(relay, fingerprintOf(next.certificate))
  })

  it('is re-read on SIGHUP', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'mailroom-relay-hup-'))
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }))
    const files = { keyFile: path.join(folder, 'key.pem'), certFile: path.join(folder, 'cert.pem') }
    const first = createSelfSignedCertificate('relay.test')
    writeFileSync(files.keyFile, first.privateKey)
    writeFileSync(files.certFile, first.certificate)
    const log = captureLog()
    // Not watching the folder: only the signal can bring the new pair in.
    const tls = await watchCertificateFiles(files, {
      log: createLogger({ logLevel: 'info' }, log.stream),
      watch: false,
    })
    const relay = await startRelay({ tls })
    await expectServed(relay, fingerprintOf(first.certificate))
    const next = createSelfSignedCertificate('relay.test')
    writeFileSync(files.keyFile, next.privateKey)
    writeFileSync(files.certFile, next.certificate)
    expect(await servedFingerprint(relay.tlsPort, 'implicit')).toBe(fingerprintOf(first.certificate))
    process.kill(process.pid, 'SIGHUP')
    await expectServed(relay, fingerprintOf(next.certificate))
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ msg: 'SMTP relay: reloaded the TLS certificate', reason: 'SIGHUP' }),
    )
  })
})

describe('the self-signed certificate for development', () => {
  it('is made once in its folder, reused on the next start, and announced with a warning each time', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-relay-data-'))
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }))
    const folder = path.join(dataDir, 'smtp-relay')
    const log = captureLog()
    const logger = createLogger({ logLevel: 'info' }, log.stream)
    const files = await ensureSelfSignedCertificate(folder, 'relay.test', logger)
    expect(files).toEqual({ keyFile: path.join(folder, 'key.pem'), certFile: path.join(folder, 'cert.pem') })
    const made = readFileSync(files.certFile)
    expect(new X509Certificate(made).checkHost('relay.test')).toBe('relay.test')
    expect(statSync(files.keyFile).mode & 0o777).toBe(0o600)

    expect(await ensureSelfSignedCertificate(folder, 'relay.test', logger)).toEqual(files)
    expect(readFileSync(files.certFile).equals(made)).toBe(true)
    const warnings = log.lines().filter((line) => line.level === 40)
    expect(warnings.map((line) => [line.msg, line.made])).toEqual([
      [expect.stringMatching(/^SMTP relay: using a self-signed certificate, for development only/), true],
      [expect.stringMatching(/^SMTP relay: using a self-signed certificate, for development only/), false],
    ])

    // And the relay serves it.
    const tls = await watchCertificateFiles(files, { log: logger })
    const relay = await startRelay({ tls })
    await expectServed(relay, fingerprintOf(made))
  })

  it('is made anew when the host name changes', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'mailroom-relay-rename-'))
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }))
    const logger = createLogger({ logLevel: 'info' }, captureLog().stream)
    const files = await ensureSelfSignedCertificate(folder, 'old.relay.test', logger)
    await ensureSelfSignedCertificate(folder, 'new.relay.test', logger)
    expect(new X509Certificate(readFileSync(files.certFile)).checkHost('new.relay.test')).toBe('new.relay.test')
  })
})
