import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { importContactsJob } from '../../src/modules/contacts/jobs.js'
import { createJobQueues } from '../../src/worker.js'
import { cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

const { start, dataDir: newDataDir } = cliSandbox()

type ImportView = { state: string; processedRows: number; totalRows: number | null }

describe('an import whose worker is killed', () => {
  let api: TestServer | undefined
  afterAll(async () => {
    await api?.close()
  })

  it('is run again by another worker within 60 s of the kill, to the end', async () => {
    const databaseUrl = await createTestDatabase()
    api = await startTestServer({ databaseUrl, worker: false })
    const server = api
    const account: Account = await createAccount(server)
    // Close to the 5 MB upload limit: a few seconds of work, so the kill lands mid-import.
    const rowCount = 180_000
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

    const env = { DATABASE_URL: databaseUrl, DATA_DIR: newDataDir('mailroom-import-crash-'), LOG_LEVEL: 'warn' }
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
