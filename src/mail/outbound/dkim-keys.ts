import { generateKeyPair } from 'node:crypto'
import { promisify } from 'node:util'
import { openSealedText, sealText } from '../../db/sealed-text.js'

const generateKeyPairAsync = promisify(generateKeyPair)

const dkimKeyBits = 2048

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

const purpose = 'dkim-private-key'

/** Sealed with the server secret (db/sealed-text.ts); `context` (project and domain) binds it to its row. */
export function encryptPrivateKey(secret: string, privateKeyPem: string, context: string): string {
  return sealText(secret, purpose, privateKeyPem, context)
}

export function decryptPrivateKey(secret: string, sealed: string, context: string): string {
  return openSealedText(secret, purpose, sealed, context)
}
