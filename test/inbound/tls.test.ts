import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createTransport } from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSelfSignedCertificate } from '../helpers/self-signed-certificate.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-inbound-tls-'))
const { certificate, privateKey } = createSelfSignedCertificate('mx.inbound.test')
let server: TestServer

beforeAll(async () => {
  writeFileSync(path.join(dir, 'key.pem'), privateKey)
  writeFileSync(path.join(dir, 'cert.pem'), certificate)
  server = await startTestServer({
    config: {
      inboundSmtpPort: 0,
      inboundTls: { keyFile: path.join(dir, 'key.pem'), certFile: path.join(dir, 'cert.pem') },
    },
  })
})
afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the receiver with INBOUND_TLS_KEY_FILE and INBOUND_TLS_CERT_FILE', () => {
  it('offers STARTTLS with that certificate, then answers as usual', async () => {
    const transport = createTransport({
      host: '127.0.0.1',
      port: server.inbound?.port ?? 0,
      requireTLS: true,
      // Verifies the certificate: a different one fails the handshake instead of reaching RCPT TO.
      tls: { ca: certificate, servername: 'mx.inbound.test' },
    })
    await expect(
      transport.sendMail({ from: 'a@example.net', to: 'x@nowhere.test', subject: 's', text: 't' }),
    ).rejects.toMatchObject({ responseCode: 550 })
  })
})
