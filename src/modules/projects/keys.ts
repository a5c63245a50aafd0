import { randomBytes } from 'node:crypto'

export function generateProjectKeys(): { publicKey: string; secretKey: string } {
  return {
    publicKey: `pk_${randomBytes(32).toString('hex')}`,
    secretKey: `sk_${randomBytes(32).toString('hex')}`,
  }
}
