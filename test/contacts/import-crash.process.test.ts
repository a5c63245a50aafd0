import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { importContactsJob } from '../../src/modules/contacts/jobs.js'
import { createJobQueues } from '../../src/worker.js'
import { cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer, testConfig } from '../helpers/server.js'

const { start, dataDir: newDataDir } = cliSandbox()

type ImportView = { state: string; processedRows: number; totalRows: number | null }

/**
 * pg-boss's smallest heartbeat instead of the default 20 s: the dead worker's job is failed and retried within
 * about 15 s. A job keeps the heartbeat its queue had when it was made (here by the API process), so the API
 * and the workers all use it.
 */
const jobHeartbeatSeconds = 10

describe('an import whose worker is killed', () => {
  let api: TestServer | undefined
  afterAll(async () => {
    await api?.close()
  })

  it('is run again by another worker within 60 s of the kill, to the end', async () => {
    const databaseUrl = await createTestDatabase()
    api = await startTestServer({
      databaseUrl,
      worker: false,
      config: { crashRecovery: { ...testConfig().crashRecovery, jobHeartbeatSeconds } },
    })
    const server = api
    const account: Account = await createAccount(server)
    // 30 batches of 1,000 rows, each committed with its progress: the kill, within a poll (20 ms) of the first
    // batch seen, lands with most of them to go even on an idle machine (~10,000 rows/s), and what is proven
    // (a re-run to the end, no row lost or doubled) does not grow with the file.
    const rowCount = 30_000
    const lines = ['email,plan']
    for (let i = 0; i < rowCount; i++) lines.push(`row${i}@example.com,pro`)
    const form = new FormData()
    form.append('file', new Blob([lines.join('\n')], { type: 'text/csv' }), 'contacts.csv')
    const uploaded = await fetch(`${server.url}/contacts/import`, {
      method: 'POST',
      headers: bearer(account.secretKey),
      body: form,
    })
    expect(uploaded.status).toBe(202)
    const { jobId } = (await uploaded.json()) as { jobId: string }
    const progress = async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/contacts/import/${jobId}`,
        headers: bearer(account.secretKey),
      })
      return response.json<ImportView>()
    }

    const env = {
      DATABASE_URL: databaseUrl,
      DATA_DIR: newDataDir('mailroom-import-crash-'),
      // One SECRET for every process, as the README asks: the workers open the keys the api process sealed.
      SECRET: server.ctx.config.secret,
      JOB_HEARTBEAT_SECONDS: String(jobHeartbeatSeconds),
      LOG_LEVEL: 'warn',
    }
    const first = start('worker', env)
    await vi.waitFor(
      async () => {
        const view = await progress()
        expect(view.state).toBe('running')
        expect(view.processedRows).toBeGreaterThan(0)
      },
      { timeout: 60_000, interval: 20 },
    )
    first.child.kill('SIGKILL')
    await first.exited
    const killedAt = Date.now()
    const atKill = await progress()
    expect(atKill.state).toBe('running')
    expect(atKill.processedRows).toBeLessThan(rowCount)

    // Another worker (or the same one restarted) finds the job's heartbeat stopped and runs it again.
    start('worker', env)
    const done = await vi.waitFor(
      async () => {
        const view = await progress()
        expect(view.state).toBe('completed')
        return view
      },
      { timeout: 60_000, interval: 100 },
    )
    const recoveredMs = Date.now() - killedAt
    expect(done).toMatchObject({ processedRows: rowCount, totalRows: rowCount })
    const contacts = await server.ctx.db.execute<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM contacts WHERE project_id = ${account.project.id}`,
    )
    expect(contacts.rows[0]?.count).toBe(rowCount)
    expect(recoveredMs).toBeLessThan(60_000)
    console.info(`import: killed at row ${atKill.processedRows}, completed ${recoveredMs} ms after the kill`)
  }, 150_000)

  it('gets the heartbeat on a queue an older version created without one, when a process starts', async () => {
    const server = await startTestServer({ worker: false })
    try {
      // As pg-boss's defaults made it before: no heartbeat, the 15-minute expiry.
      await server.ctx.boss.updateQueue(importContactsJob.name, { heartbeatSeconds: null, expireInSeconds: 900 })
      await createJobQueues(server.ctx)
      expect(await server.ctx.boss.getQueue(importContactsJob.name)).toMatchObject({
        heartbeatSeconds: 20,
        expireInSeconds: 6 * 3_600,
      })
    } finally {
      await server.close()
    }
  })
})
