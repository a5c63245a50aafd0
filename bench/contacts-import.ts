/**
 * CSV import of 100k rows through the HTTP API and the job worker (bar: <= 10 s, DESIGN.md §6).
 * Usage: `tsx bench/contacts-import.ts [rows]`; uses DATABASE_URL or an embedded PostgreSQL in a temp dir.
 * Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildServer } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createAppContext } from '../src/context.js'
import { jobs, loops } from '../src/jobs/registry.js'
import { createQueues, startWorkers } from '../src/jobs/worker.js'
import { createLogger } from '../src/logger.js'

const rows = Number(process.argv[2] ?? 100_000)
const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
const config = loadConfig({
  DATABASE_URL: process.env.DATABASE_URL,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '1000000',
})
const ctx = await createAppContext(config, createLogger(config), 'all')
await createQueues(ctx, jobs)
await startWorkers(ctx, jobs, loops)
const app = await buildServer(ctx)
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`

try {
  const signup = await fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'long enough password' }),
  })
  const cookie = signup.headers.get('set-cookie')?.split(';')[0] ?? ''
  const created = await fetch(`${base}/users/@me/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'bench' }),
  })
  const { secret } = (await created.json()) as { secret: string }
  const authorization = `Bearer ${secret}`

  const lines = ['email,subscribed,first_name,plan,seats,vip']
  for (let i = 0; i < rows; i++) {
    lines.push(`user${i}@example.com,${i % 3 ? 'true' : 'false'},Name${i},pro,${i % 50},${i % 2 ? 'true' : 'false'}`)
  }
  const form = new FormData()
  form.append('file', new Blob([lines.join('\n')], { type: 'text/csv' }), 'contacts.csv')

  const started = performance.now()
  const accepted = await fetch(`${base}/contacts/import`, { method: 'POST', headers: { authorization }, body: form })
  const { jobId } = (await accepted.json()) as { jobId: string }
  let job: { state: string; created: number; failed: number }
  for (;;) {
    const polled = await fetch(`${base}/contacts/import/${jobId}`, { headers: { authorization } })
    job = (await polled.json()) as typeof job
    if (job.state === 'completed' || job.state === 'failed') break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const ms = Math.round(performance.now() - started)
  console.log(
    JSON.stringify({ bench: 'contacts-import', rows, ms, state: job.state, created: job.created, barMs: 10_000 }),
  )
} finally {
  await app.close()
  await ctx.close()
  rmSync(dataDir, { recursive: true, force: true })
}
