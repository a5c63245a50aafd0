import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { createTransport } from 'nodemailer'
import type { CliProcess } from '../helpers/cli-process.js'
import { createSelfSignedCertificate } from '../helpers/self-signed-certificate.js'

/** The name the test certificate is made for; clients verify it against the certificate itself. */
const relayHostName = 'relay.test'

export type RelayCertificate = { keyFile: string; certFile: string; certificate: string }

/** A self-signed key and certificate for `relay.test`, written into `folder` as a real deployment's files. */
export function writeRelayCertificate(folder: string): RelayCertificate {
  const { certificate, privateKey } = createSelfSignedCertificate(relayHostName)
  const keyFile = path.join(folder, 'relay-key.pem')
  const certFile = path.join(folder, 'relay-cert.pem')
  writeFileSync(keyFile, privateKey)
  writeFileSync(certFile, certificate)
  return { keyFile, certFile, certificate }
}

/** The environment that turns a spawned process's relay on with those files (its ports stay 0: free ones). */
export function relayCertificateEnv(files: RelayCertificate): Record<string, string> {
  return { SMTP_RELAY_TLS_KEY_FILE: files.keyFile, SMTP_RELAY_TLS_CERT_FILE: files.certFile }
}

export type RelayPorts = { starttlsPort: number; tlsPort: number }

const listening = '"msg":"SMTP relay listening"'

/** The ports a spawned process's relay bound, from its log line (`SMTP_RELAY_PORT=0` picks free ones). */
export async function relayPortsOf(cli: CliProcess, timeoutMs = 60_000): Promise<RelayPorts> {
  await cli.waitForOutput(listening, timeoutMs)
  const line = cli
    .output()
    .split('\n')
    .find((text) => text.includes(listening))
  const { starttlsPort, tlsPort } = JSON.parse(line ?? '{}') as { starttlsPort?: unknown; tlsPort?: unknown }
  if (typeof starttlsPort !== 'number' || typeof tlsPort !== 'number') {
    throw new Error(`no relay ports in the log line: ${line}`)
  }
  return { starttlsPort, tlsPort }
}

type RelayClient = {
  port: number
  security: 'starttls' | 'implicit'
  secretKey: string
  certificate: string
  /** The client's own address on loopback (127.x.y.z), for limits counted per client address. */
  localAddress?: string
  pool?: boolean
}

/**
 * nodemailer as an app configures it for the relay, verifying the server's certificate against the test's own
 * (trusted as a CA, for the name it was made for).
 */
export function relayTransport(client: RelayClient) {
  return createTransport({
    host: '127.0.0.1',
    port: client.port,
    secure: client.security === 'implicit',
    requireTLS: client.security === 'starttls',
    auth: { user: 'mailroom', pass: client.secretKey },
    tls: { ca: client.certificate, servername: relayHostName },
    ...(client.localAddress && { localAddress: client.localAddress }),
    ...(client.pool && { pool: true, maxConnections: 2 }),
  })
}
