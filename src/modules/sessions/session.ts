import { createHash } from 'node:crypto'
import { and, eq, gt, ne, sql } from 'drizzle-orm'
import { jwtVerify, SignJWT } from 'jose'
import type { Executor } from '../../db/client.js'
import { sessions, users } from '../../db/schema/index.js'
import type { AuthSession } from '../../http/auth.js'

export const sessionLifetimeSeconds = 7 * 24 * 3600

function signingKey(secret: string): Uint8Array {
  return createHash('sha256').update(`mailroom-session:${secret}`).digest()
}

/**
 * Starts a session: a row that every request checks, and a signed cookie token naming it. The signature lets a
 * forged or garbled cookie be refused without a query; the row lets the server end the session at will.
 */
export async function createSession(db: Executor, secret: string, userId: string): Promise<string> {
  const expiresAt = new Date(Date.now() + sessionLifetimeSeconds * 1000)
  const [row] = await db.insert(sessions).values({ userId, expiresAt }).returning({ id: sessions.id })
  if (!row) throw new Error('session insert returned nothing')
  return new SignJWT({ sid: row.id })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(signingKey(secret))
}

/** The session ids a token names, if its signature and expiry hold; the row is not looked at. */
export async function readSessionToken(
  secret: string,
  token: string,
): Promise<{ userId: string; sessionId: string } | undefined> {
  try {
    const { payload } = await jwtVerify(token, signingKey(secret), { algorithms: ['HS256'] })
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return undefined
    return { userId: payload.sub, sessionId: payload.sid }
  } catch {
    return undefined
  }
}

/**
 * The live session of a cookie token: signed by us, unexpired, and its row still there. Not cached, so an ended
 * session fails on its very next request, on every API process.
 */
export async function findSession(db: Executor, secret: string, token: string): Promise<AuthSession | undefined> {
  const ids = await readSessionToken(secret, token)
  if (!ids) return undefined
  const [row] = await db
    .select({ userId: sessions.userId, sessionId: sessions.id, emailVerified: users.emailVerified })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, ids.sessionId), eq(sessions.userId, ids.userId), gt(sessions.expiresAt, sql`now()`)))
  return row
}

export async function endSession(db: Executor, sessionId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, sessionId))
}

/** Ends every session of a user, or every one but `keepSessionId` (the caller's own). */
export async function endUserSessions(db: Executor, userId: string, keepSessionId?: string | null): Promise<void> {
  await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), keepSessionId ? ne(sessions.id, keepSessionId) : undefined))
}
