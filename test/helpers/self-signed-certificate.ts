import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

/** A throwaway RSA key and self-signed certificate from openssl (about 50 ms), valid for a day. */
export function createSelfSignedCertificate(commonName: string): { certificate: string; privateKey: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-cert-'))
  try {
    const keyFile = path.join(dir, 'key.pem')
    const certFile = path.join(dir, 'cert.pem')
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        `/CN=${commonName}`,
      ],
      { stdio: 'ignore' },
    )
    return { certificate: readFileSync(certFile, 'utf8'), privateKey: readFileSync(keyFile, 'utf8') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
