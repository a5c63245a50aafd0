import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/**
 * Text stored encrypted under the server's SECRET (DKIM private keys, API keys), so a copy of the database alone
 * does not reveal it. AES-256-GCM with a key derived per purpose; `context` (e.g. the owning row) is bound as
 * additional data, so a ciphertext copied into another row does not decrypt there.
 */
const format = 'v1'

const keys = new Map<string, Buffer>()

function purposeKey(secret: string, purpose: string): Buffer {
  const id = `${purpose}\n${secret}`
  let key = keys.get(id)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'mailroom', purpose, 32))
    keys.set(id, key)
  }
  return key
}

export function sealText(secret: string, purpose: string, plaintext: string, context: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', purposeKey(secret, purpose), iv)
  cipher.setAAD(Buffer.from(context))
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [format, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64'))].join(':')
}

/** Throws for a ciphertext made under another secret, purpose or context, or altered. */
export function openSealedText(secret: string, purpose: string, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(':')
  if (version !== format || !iv || !tag || !ciphertext) throw new Error('unrecognised sealed text format')
  const decipher = createDecipheriv('aes-256-gcm', purposeKey(secret, purpose), Buffer.from(iv, 'base64'))
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(Buffer.from(tag, 'base64'))
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8')
}
