import { createHash } from 'node:crypto'
import { jwtVerify, SignJWT } from 'jose'

export const sessionLifetimeSeconds = 7 * 24 * 3600

function signingKey(secret: string): Uint8Array {
  return createHash('sha256').update(`mailroom-session:${secret}`).digest()
}

export async function createSessionToken(secret: string, userId: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(`${sessionLifetimeSeconds}s`)
    .sign(signingKey(secret))
}

/** The user id of a valid, unexpired token; undefined for anything else (tampered, expired, malformed). */
export async function userIdFromSessionToken(secret: string, token: string): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(token, signingKey(secret), { algorithms: ['HS256'] })
    return payload.sub
  } catch {
    return undefined
  }
}
