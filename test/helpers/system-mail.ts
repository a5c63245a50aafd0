import { and, desc, eq, sql } from 'drizzle-orm'
import { simpleParser } from 'mailparser'
import { expect, vi } from 'vitest'
import { capturedMessages, projects } from '../../src/db/schema/index.js'
import { eventually } from './emails.js'
import type { TestServer } from './server.js'

export type SystemEmail = { from: string; subject: string; html: string; text: string; link: string }

/** Captured account emails to an address, oldest first, read from the capture transport's local mailbox. */
export async function systemEmailsTo(server: TestServer, to: string): Promise<SystemEmail[]> {
  const rows = await server.ctx.db
    .select({ raw: capturedMessages.raw })
    .from(capturedMessages)
    .innerJoin(projects, eq(projects.id, capturedMessages.projectId))
    .where(and(eq(projects.system, true), sql`${to} = ANY(${capturedMessages.toEmails})`))
    .orderBy(desc(capturedMessages.createdAt))
  const parsed = await Promise.all(rows.reverse().map((row) => simpleParser(row.raw)))
  return parsed.map((mail) => {
    const html = typeof mail.html === 'string' ? mail.html : ''
    const link = /<a href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? ''
    return { from: mail.from?.text ?? '', subject: mail.subject ?? '', html, text: mail.text ?? '', link }
  })
}

/** Waits until `count` account emails to the address reached the mailbox; returns the newest. */
export async function waitForSystemEmail(server: TestServer, to: string, count = 1): Promise<SystemEmail> {
  let found: SystemEmail[] = []
  await vi.waitFor(async () => {
    found = await systemEmailsTo(server, to)
    expect(found.length).toBeGreaterThanOrEqual(count)
  }, eventually)
  const newest = found.at(-1)
  if (!newest) throw new Error('no email')
  return newest
}

/** The `token` query parameter of a mailed link, as the dashboard page it opens reads it. */
export function tokenOf(link: string): string {
  const token = new URL(link).searchParams.get('token')
  if (!token) throw new Error(`no token in ${link}`)
  return token
}
