import { createCipheriv, createDecipheriv, generateKeyPair, hkdfSync, randomBytes } from 'node:crypto'
import { promisify } from 'node:util'

const generateKeyPairAsync = promisify(generateKeyPair)

export const dkimKeyBits = 2048

export type DkimKeyPair = {
  /** Base64 DER SubjectPublicKeyInfo: the `p=` tag of the DKIM TXT record. */
  publicKey: string
  privateKeyPem: string
}

/** RSA generation takes a few hundred milliseconds; the async form runs it on libuv's pool, off the event loop. */
export async function generateDkimKeyPair(): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: dkimKeyBits,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  return { publicKey: publicKey.toString('base64'), privateKeyPem: privateKey }
}

const format = 'v1'

function encryptionKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'mailroom', 'dkim-private-key', 32))
}

/**
 * AES-256-GCM with a key derived from the server secret. `context` (e.g. project and domain) is bound as
 * additional data, so a ciphertext copied to another row does not decrypt there.
 */
export function encryptPrivateKey(secret: string, privateKeyPem: string, context: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(secret), iv)
  cipher.setAAD(Buffer.from(context))
  const ciphertext = Buffer.concat([cipher.update(privateKeyPem, 'utf8'), cipher.final()])
  return [format, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64'))].join(':')
}

export function decryptPrivateKey(secret: string, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(':')
  if (version !== format || !iv || !tag || !ciphertext) {
    throw new Error('unrecognised private key format')
  }
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(secret), Buffer.from(iv, 'base64'))
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(Buffer.from(tag, 'base64'))
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8')
}
