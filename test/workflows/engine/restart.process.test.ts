import { and, eq, sql } from 'drizzle-orm'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { emails, workflowExecutions, workflowStepExecutions } from '../../../src/db/schema/index.js'
import { cliSandbox } from '../../helpers/cli-process.js'
import { createTestDatabase } from '../../helpers/database.js'
import { addDomain } from '../../helpers/domains.js'
import { createAccount } from '../../helpers/factories.js'
import { startTestServer } from '../../helpers/server.js'
import { startSmtpSink } from '../../helpers/smtp-sink.js'
import { insertTemplate, insertWorkflow, track } from './fixtures.js'

const { start, dataDir } = cliSandbox()
/**
 * Enough executions that the kill finds them at every stage (sending, waiting in the DELAY, not started) in one
 * worker's batches; a repeated or lost step shows in the counts of 200 as it would of thousands.
 */
const contactCount = 200
/**
 * The emails the killed worker had claimed go out again when their lease runs out (this worker shares a
 * PostgreSQL server, so no restart can requeue them at once): a few seconds instead of the default 30 s.
 */
const outboxLeaseSeconds = '6'

describe('workflow executions across a killed worker', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('runs every step once: nothing repeated or lost by the kill, and DELAYs due meanwhile run after the restart', async () => {
    const sink = await startSmtpSink()
    cleanups.push(() => sink.close())
    const databaseUrl = await createTestDatabase()
    const api = await startTestServer({ databaseUrl, worker: false })
    cleanups.push(() => api.close())
    const account = await createAccount(api)
    // The API process runs in capture mode: a registered sender domain is enough to send.
    await addDomain(api, account, 'restart.mailroom.test')
    const from = 'hello@restart.mailroom.test'
    const welcome = await insertTemplate(api, account.project.id, { from, subject: 'Welcome' })
    const followUp = await insertTemplate(api, account.project.id, { from, subject: 'Follow-up' })
    const workflow = await insertWorkflow(api, account.project.id, {
      eventName: 'joined',
      steps: {
        first: { type: 'SEND_EMAIL', templateId: welcome },
        pause: { type: 'DELAY', config: { amount: 0.05, unit: 'minutes' } },
        note: { type: 'UPDATE_CONTACT', config: { updates: { followed: true } } },
        second: { type: 'SEND_EMAIL', templateId: followUp },
      },
      edges: [
        ['trigger', 'first'],
        ['first', 'pause'],
        ['pause', 'note'],
        ['note', 'second'],
      ],
    })
    const env = {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir('mailroom-workflow-restart-'),
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: sink.url,
      OUTBOX_LEASE_SECONDS: outboxLeaseSeconds,
      SECRET: api.ctx.config.secret,
      LOG_LEVEL: 'info',
    }
    const first = start('worker', env)
    await first.waitForOutput('worker started', 60_000)
    for (let n = 0; n < contactCount; n++) await track(api, account, `member-${n}@example.org`, 'joined')

    // Killed while executions are on their way: some waiting in their DELAY, some not started.
    await vi.waitFor(
      async () => {
        const [waiting] = await api.ctx.db
          .select({ n: sql<number>`count(*)::int` })
          .from(workflowExecutions)
          .where(and(eq(workflowExecutions.workflowId, workflow.id), eq(workflowExecutions.status, 'WAITING')))
        if ((waiting?.n ?? 0) < 20) throw new Error('not yet')
      },
      { timeout: 60_000, interval: 20 },
    )
    await first.stop('SIGKILL')
    // The DELAYs (3 s) come due while no worker runs.
    await new Promise((resolve) => setTimeout(resolve, 4_000))

    const second = start('worker', env)
    await second.waitForOutput('worker started', 60_000)
    await vi.waitFor(
      async () => {
        const rows = await api.ctx.db
          .select({ status: workflowExecutions.status, n: sql<number>`count(*)::int` })
          .from(workflowExecutions)
          .where(eq(workflowExecutions.workflowId, workflow.id))
          .groupBy(workflowExecutions.status)
        if (rows.length !== 1 || rows[0]?.status !== 'COMPLETED' || rows[0].n !== contactCount) {
          throw new Error(JSON.stringify(rows))
        }
      },
      { timeout: 90_000, interval: 100 },
    )

    // Each step ran once per execution: one history row each, and one outbox email per SEND_EMAIL step.
    const history = await api.ctx.db.execute<{ step_name: string; status: string; n: number }>(sql`
      SELECT h.step_name, h.status, count(*)::int AS n
      FROM ${workflowStepExecutions} AS h JOIN ${workflowExecutions} AS x ON x.id = h.execution_id
      WHERE x.workflow_id = ${workflow.id}
      GROUP BY 1, 2 ORDER BY 1`)
    expect(history.rows).toEqual(
      ['first', 'note', 'pause', 'second', 'trigger'].map((name) => ({
        step_name: name,
        status: 'COMPLETED',
        n: contactCount,
      })),
    )
    const perSubject = await api.ctx.db
      .select({
        subject: emails.subject,
        n: sql<number>`count(DISTINCT ${emails.toEmail})::int`,
        rows: sql<number>`count(*)::int`,
      })
      .from(emails)
      .where(eq(emails.projectId, account.project.id))
      .groupBy(emails.subject)
      .orderBy(emails.subject)
    expect(perSubject).toEqual([
      { subject: 'Follow-up', n: contactCount, rows: contactCount },
      { subject: 'Welcome', n: contactCount, rows: contactCount },
    ])
    // And every one of them reached the receiving server.
    await sink.waitForMessages(2 * contactCount, 60_000)
    expect(await second.stop('SIGTERM')).toBe(0)
    const received = new Set(sink.messages.map((message) => `${message.envelope.to[0]} ${message.parsed.subject}`))
    expect(received.size).toBe(2 * contactCount)
  }, 240_000)
})
