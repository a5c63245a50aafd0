import { DrizzleQueryError } from 'drizzle-orm'
import { DatabaseError } from 'pg'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { captureLog } from '../helpers/log-capture.js'

const key = `sk_${'ab12'.repeat(16)}`

/** A PostgreSQL error as pg builds it from the server's answer. */
function postgresError(message: string, fields: Partial<DatabaseError>): DatabaseError {
  return Object.assign(new DatabaseError(message, 100, 'error'), { severity: 'ERROR', ...fields })
}

/** Logs `object` through a fresh logger and gives back the one line written, as text and parsed. */
function logged(object: Record<string, unknown>): { text: string; line: Record<string, unknown> } {
  const log = captureLog()
  createLogger({ logLevel: 'info' }, log.stream).error(object, 'failed')
  const [line] = log.lines()
  if (!line) throw new Error('nothing was logged')
  return { text: log.text(), line }
}

describe('the logger keeps secrets out of every line', () => {
  it("drops PostgreSQL's detail and context, which quote the row or the input", () => {
    const err = postgresError('duplicate key value violates unique constraint "projects_secret_key_unique"', {
      code: '23505',
      constraint: 'projects_secret_key_unique',
      detail: `Key (secret_key)=(${key}) already exists.`,
      where: `COPY projects, line 2, column secret_key: "${key}"`,
    })
    const { text, line } = logged({ err })
    expect(text).not.toContain(key)
    expect(line.err).toMatchObject({ code: '23505', constraint: 'projects_secret_key_unique' })
    expect(line.err).not.toHaveProperty('detail')
  })

  it('censors the input a data exception quotes in its message', () => {
    const err = postgresError(`invalid input syntax for type uuid: "${key}"`, { code: '22P02' })
    const { text, line } = logged({ err })
    expect(text).not.toContain(key)
    expect(line.err).toMatchObject({ code: '22P02', message: 'invalid input syntax for type uuid: "[redacted]"' })
  })

  it('logs a failed query found down a chain of causes with its statement and code, without its values', () => {
    const cause = postgresError('column "disabled_reason" does not exist', { code: '42703' })
    const query = 'select "id" from "projects" where "secret_key" = $1'
    const err = new Error('background loop failed', { cause: new DrizzleQueryError(query, [key], cause) })
    const { text, line } = logged({ err })
    expect(text).not.toContain(key)
    expect(line.err).toMatchObject({
      message: `background loop failed: Failed query: ${query}: column "disabled_reason" does not exist`,
      stack: expect.stringContaining(`caused by: Error: Failed query: ${query}\n`),
    })
  })

  it('censors credentials in headers and in secret fields at the depths they are logged', () => {
    const { text, line } = logged({
      req: { headers: { authorization: `Bearer ${key}`, cookie: 'mailroom_session=s3ss10n' } },
      user: { email: 'a@example.com', password: 'hunter2', passwordHash: '$argon2id$v=19$abc' },
      project: { name: 'Shop', secretKey: key },
      config: { smtpUrl: 'smtp://user:pass@mail', stripe: { webhookSecret: 'whsec_abc' } },
    })
    for (const secret of [key, 's3ss10n', 'hunter2', '$argon2id', 'user:pass', 'whsec_'])
      expect(text).not.toContain(secret)
    expect(line).toMatchObject({
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]' } },
      user: { email: 'a@example.com', password: '[redacted]' },
      project: { name: 'Shop', secretKey: '[redacted]' },
    })
  })
})
