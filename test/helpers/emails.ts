import { createServer } from 'node:net'
import { inArray } from 'drizzle-orm'
import { emails } from '../../src/db/schema/index.js'
import { enqueueEmails, type NewEmail, wakeOutbox } from '../../src/modules/delivery/service.js'
import type { TestServer } from './server.js'

export function testEmail(overrides: Partial<NewEmail> = {}): NewEmail {
  return {
    from: { email: 'hello@mail.example.test', name: 'Mailroom' },
    to: { email: 'reader@example.org' },
    subject: 'Hello',
    html: '<p>Hello <b>there</b></p>',
    ...overrides,
  }
}

/** Enqueues as the send route will: inside a transaction of the caller. */
export async function enqueue(server: TestServer, projectId: string, input: NewEmail[]): Promise<string[]> {
  const ids = await server.ctx.db.transaction((tx) => enqueueEmails(tx, projectId, input))
  wakeOutbox(server.ctx.pool)
  return ids
}

export function findEmails(server: TestServer, ids: string[]) {
  return server.ctx.db.select().from(emails).where(inArray(emails.id, ids))
}

/** A loopback port with nothing listening on it (free at the time of the call). */
export async function unusedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** For `vi.waitFor`: the first send of a server also starts its compose threads, which takes a while under load. */
export const eventually = { timeout: 15_000, interval: 50 }
