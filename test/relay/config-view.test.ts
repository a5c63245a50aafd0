import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { minimalEnv } from '../helpers/config.js'
import { unusedPort } from '../helpers/emails.js'
import { createSelfSignedCertificate } from '../helpers/self-signed-certificate.js'
import { startTestServer } from '../helpers/server.js'

/*
 * GET /config tells the dashboard what to paste into an app's SMTP settings, from the relay's configuration as the
 * environment sets it (loadConfig), on a server that runs with it.
 */

let certificateDir: string
let keyFile: string
let certFile: string

beforeAll(() => {
  certificateDir = mkdtempSync(path.join(tmpdir(), 'mailroom-relay-cert-'))
  const { certificate, privateKey } = createSelfSignedCertificate('smtp.shop.example')
  keyFile = path.join(certificateDir, 'relay-key.pem')
  certFile = path.join(certificateDir, 'relay-cert.pem')
  writeFileSync(keyFile, privateKey)
  writeFileSync(certFile, certificate)
})
afterAll(() => rmSync(certificateDir, { recursive: true, force: true }))

/** GET /config's body on a server whose relay is configured by `env` (over a minimal environment). */
async function configBody(env: Record<string, string>) {
  const smtpRelay = loadConfig({ ...minimalEnv, ...env }).smtpRelay
  const server = await startTestServer({ worker: false, config: { smtpRelay } })
  try {
    const response = await server.app.inject({ method: 'GET', url: '/config' })
    expect(response.statusCode).toBe(200)
    return { text: response.body, json: response.json() }
  } finally {
    await server.close()
  }
}

describe('GET /config: the SMTP relay', () => {
  it('gives the public host, both ports, the recipient limit, and never the certificate files', async () => {
    const [starttls, tls] = [await unusedPort(), await unusedPort()]
    const { text, json } = await configBody({
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: 'smtp://relay.internal:25',
      PUBLIC_URL: 'https://mail.shop.example',
      SMTP_RELAY_PUBLIC_HOST: 'smtp.shop.example',
      SMTP_RELAY_HOST: '10.1.2.3',
      SMTP_RELAY_PORT: String(starttls),
      SMTP_RELAY_TLS_PORT: String(tls),
      SMTP_RELAY_TLS_KEY_FILE: keyFile,
      SMTP_RELAY_TLS_CERT_FILE: certFile,
      SMTP_RELAY_MAX_RECIPIENTS: '20',
    })
    expect(json.smtpRelay).toEqual({
      enabled: true,
      host: 'smtp.shop.example',
      ports: { starttls, tls },
      selfSigned: false,
      maxRecipients: 20,
    })
    // Neither the bind address nor where the key lives is anyone's business but the operator's.
    expect(text).not.toContain(certificateDir)
    expect(text).not.toContain('10.1.2.3')
  })

  it("says a development server's certificate is self-signed, and the host defaults to PUBLIC_URL's", async () => {
    const [starttls, tls] = [await unusedPort(), await unusedPort()]
    const { json } = await configBody({
      MAIL_TRANSPORT: 'capture',
      PUBLIC_URL: 'http://dev.shop.example:3000',
      SMTP_RELAY_PORT: String(starttls),
      SMTP_RELAY_TLS_PORT: String(tls),
    })
    expect(json.smtpRelay).toEqual({
      enabled: true,
      host: 'dev.shop.example',
      ports: { starttls, tls },
      selfSigned: true,
      maxRecipients: 50,
    })
  })

  it('says the relay is off, and which variables turn it on, with a real transport and no certificate', async () => {
    const { json } = await configBody({ MAIL_TRANSPORT: 'ses' })
    expect(json.smtpRelay).toEqual({
      enabled: false,
      reason: 'MAIL_TRANSPORT is ses and SMTP_RELAY_TLS_KEY_FILE, SMTP_RELAY_TLS_CERT_FILE are unset',
    })
  })

  it('says the relay is off when SMTP_RELAY_ENABLED is false, with nothing else about it', async () => {
    const { json } = await configBody({ SMTP_RELAY_ENABLED: 'false' })
    expect(json.smtpRelay).toEqual({ enabled: false, reason: 'SMTP_RELAY_ENABLED is false' })
    // The rest of the body is as it was before the relay.
    expect(json).toMatchObject({ signups: true, transport: 'capture', storage: { s3: false } })
  })
})
