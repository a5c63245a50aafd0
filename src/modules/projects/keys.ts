import { createHmac, createSecretKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto'
import { openSealedText, sealText } from '../../db/sealed-text.js'

export type ProjectKeys = { publicKey: string; secretKey: string }

/** A project's keys as its row holds them (docs/decisions/0019): never the plaintext. */
export type StoredProjectKeys = {
  publicKeyHash: string
  secretKeyHash: string
  publicKeySealed: string
  secretKeySealed: string
}

export function generateProjectKeys(prefix = ''): ProjectKeys {
  return {
    publicKey: `${prefix}pk_${randomBytes(32).toString('hex')}`,
    secretKey: `${prefix}sk_${randomBytes(32).toString('hex')}`,
  }
}

// Derived once per secret: every key-authenticated request hashes its key (a KeyObject HMACs ~4x faster than a Buffer).
const lookupKeys = new Map<string, KeyObject>()

/**
 * What a request's key is looked up by: HMAC-SHA-256 under a key derived from SECRET. Keys are 256 random bits,
 * so no slow hash is needed against guessing, and without SECRET the hashes in a database copy lead nowhere.
 */
export function keyLookupHash(secret: string, key: string): string {
  let lookupKey = lookupKeys.get(secret)
  if (!lookupKey) {
    lookupKey = createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'mailroom', 'api-key-lookup', 32)))
    lookupKeys.set(secret, lookupKey)
  }
  return createHmac('sha256', lookupKey).update(key).digest('hex')
}

const sealPurpose = 'api-key'

/** The sealed key is bound to its project and kind: copied into another row or column, it does not open. */
function sealContext(projectId: string, kind: 'public' | 'secret'): string {
  return `${projectId}:${kind}`
}

export function storeProjectKeys(secret: string, projectId: string, keys: ProjectKeys): StoredProjectKeys {
  return {
    publicKeyHash: keyLookupHash(secret, keys.publicKey),
    secretKeyHash: keyLookupHash(secret, keys.secretKey),
    publicKeySealed: sealText(secret, sealPurpose, keys.publicKey, sealContext(projectId, 'public')),
    secretKeySealed: sealText(secret, sealPurpose, keys.secretKey, sealContext(projectId, 'secret')),
  }
}

/** The keys shown to the project's members (the spec and Plunk show them). */
export function revealProjectKeys(
  secret: string,
  projectId: string,
  row: { publicKeySealed: string | null; secretKeySealed: string | null },
): ProjectKeys {
  // Sealed at start for every row (seal-plaintext-keys.ts); a row without is a bug, not a state to show.
  if (row.publicKeySealed === null || row.secretKeySealed === null) {
    throw new Error(`project ${projectId} has no sealed keys`)
  }
  return {
    publicKey: openSealedText(secret, sealPurpose, row.publicKeySealed, sealContext(projectId, 'public')),
    secretKey: openSealedText(secret, sealPurpose, row.secretKeySealed, sealContext(projectId, 'secret')),
  }
}
