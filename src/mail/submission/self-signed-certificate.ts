import { X509Certificate } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { isIP } from 'node:net'
import path from 'node:path'
import { createSecureContext } from 'node:tls'
import type { Logger } from '../../logger.js'
import type { CertificateFiles } from './certificates.js'

const validityDays = 825

/**
 * The development relay's key and certificate in `folder` (DATA_DIR/smtp-relay): made on the first start and reused
 * after, so a client told to trust it once keeps working. A missing, broken or expired pair, or one for another host
 * name, is made anew. Logs a warning either way: clients must skip verification for it, for development only.
 */
export async function ensureSelfSignedCertificate(
  folder: string,
  hostName: string,
  log: Logger,
): Promise<CertificateFiles> {
  const files = { keyFile: path.join(folder, 'key.pem'), certFile: path.join(folder, 'cert.pem') }
  const made = !(await isUsable(files, hostName))
  if (made) await writeSelfSignedCertificate(folder, files, hostName)
  log.warn(
    { ...files, hostName, made },
    'SMTP relay: using a self-signed certificate, for development only; set SMTP_RELAY_TLS_KEY_FILE and ' +
      'SMTP_RELAY_TLS_CERT_FILE for a real one',
  )
  return files
}

/** A pair made earlier that loads, has not expired and still names this host. */
async function isUsable(files: CertificateFiles, hostName: string): Promise<boolean> {
  try {
    const [key, cert] = await Promise.all([readFile(files.keyFile), readFile(files.certFile)])
    createSecureContext({ key, cert })
    const certificate = new X509Certificate(cert)
    return (
      new Date(certificate.validTo).getTime() > Date.now() &&
      (isIP(hostName) ? certificate.checkIP(hostName) : certificate.checkHost(hostName)) !== undefined
    )
  } catch {
    return false
  }
}

async function writeSelfSignedCertificate(folder: string, files: CertificateFiles, hostName: string): Promise<void> {
  // Loaded only when a pair is made: it brings @peculiar/x509 and reflect-metadata, which patches the global Reflect.
  const { generate } = await import('selfsigned')
  const notBeforeDate = new Date()
  const pems = await generate([{ name: 'commonName', value: hostName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + validityDays * 24 * 60 * 60 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          isIP(hostName) ? { type: 7, ip: hostName } : { type: 2, value: hostName },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  })
  await mkdir(folder, { recursive: true, mode: 0o700 })
  // The key first and each through a rename: a crash halfway leaves no certificate without its key.
  await writeAtomically(files.keyFile, pems.private, 0o600)
  await writeAtomically(files.certFile, pems.cert, 0o644)
}

async function writeAtomically(file: string, content: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, content, { mode })
  await rename(temporary, file)
}
