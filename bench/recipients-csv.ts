/**
 * A campaign's recipients as CSV (`GET /campaigns/:id/recipients.csv`, issue #32): 1M recipients streamed in
 * <= 60 s with the server's memory flat.
 *
 *   npx tsx bench/recipients-csv.ts [--recipients 1000000]
 *
 * The built server (`dist/cli.js api`) on a fresh embedded PostgreSQL (or a database of its own on DATABASE_URL's
 * server); a campaign made through the API, its recipients' emails generated set-based into the real table, in
 * the statuses a sent campaign's mail ends in (a few bounced, failed and complained), and a few thousand
 * unsubscribes. Then the whole file, and the opened recipients alone, read by a client in this process that counts
 * the lines as they come: time to the first byte and to the last, rows, bytes, and the server's resident memory
 * (PostgreSQL excluded) before, at its peak and after, sampled every 100 ms; CPU per 1,000 rows.
 * Prints JSON and keeps a copy in bench/results/.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { createBenchAccount } from './lib/account.js'
import { reportResult } from './lib/result.js'
import { startBenchServer } from './lib/server.js'
import { openServerDatabase } from './lib/server-database.js'

const { values } = parseArgs({ options: { recipients: { type: 'string', default: '1000000' } } })
const recipientCount = Number(values.recipients)
const domain = 'bench.mailroom.test'
const chunkSize = 250_000

const round = (value: number, digits = 1) => Number(value.toFixed(digits))

/** Reads the whole answer as a client would, counting lines; never holds more than one chunk. */
async function download(url: string, headers: Record<string, string>) {
  const started = performance.now()
  const response = await fetch(url, { headers })
  if (!response.ok || !response.body) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  let firstByteMs = 0
  let bytes = 0
  let lines = 0
  for await (const chunk of response.body) {
    if (bytes === 0) firstByteMs = performance.now() - started
    bytes += chunk.length
    for (const byte of chunk) if (byte === 10) lines++
  }
  return { seconds: round((performance.now() - started) / 1000, 2), firstByteMs: round(firstByteMs), bytes, lines }
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-csv-'))
  const serverEnv: Record<string, string> = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}
  const server = await startBenchServer(
    { ...serverEnv, RATE_LIMIT_PER_MINUTE: '100000000' },
    { dataDir, command: 'api' },
  )
  const database = await openServerDatabase(dataDir, serverEnv)
  try {
    const account = await createBenchAccount(server.url)
    const headers = { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' }
    const post = async (url: string, body: unknown) => {
      const response = await fetch(`${server.url}${url}`, { method: 'POST', headers, body: JSON.stringify(body) })
      if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`)
      return (await response.json()) as { id?: string; data?: { id: string } }
    }
    await post('/domains', { domain })
    const created = await post('/campaigns', {
      name: 'Spring launch',
      subject: 'Hello {{ firstName ?? "friend" }}',
      body: '<p>Hi {{ firstName ?? "there" }}</p>',
      from: `news@${domain}`,
      audienceType: 'ALL',
    })
    // In Plunk's envelope.
    const campaign = { id: created.data?.id ?? '' }
    const db = database.db
    const generateStarted = performance.now()
    for (let from = 0; from < recipientCount; from += chunkSize) {
      const to = Math.min(recipientCount, from + chunkSize)
      await db.execute(sql`
        WITH generated AS (
          SELECT g, now() - interval '2 days' + g * interval '1 millisecond' AS at, random() AS r
          FROM generate_series(${from}::int, ${to - 1}::int) AS g
        ),
        shaped AS (
          SELECT g, at, encode(overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send((extract(epoch FROM at) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 'hex')::uuid AS id,
            CASE WHEN r < 0.01 THEN 'BOUNCED' WHEN r < 0.015 THEN 'FAILED' WHEN r < 0.0155 THEN 'COMPLAINED'
              WHEN r < 0.6 THEN 'DELIVERED' WHEN r < 0.85 THEN 'OPENED' ELSE 'CLICKED' END::email_status AS status
          FROM generated
        )
        INSERT INTO emails (id, project_id, campaign_id, source_type, priority, from_email, to_email, subject, html,
          tracked, status, attempts, message_id, sent_at, delivered_at, opened_at, clicked_at, bounced_at,
          complained_at, failed_at, last_error, created_at, updated_at)
        SELECT id, ${account.projectId}::uuid, ${campaign.id}::uuid, 'CAMPAIGN', 10, 'news@${sql.raw(domain)}',
          'reader' || g || '@example.com', 'Hello friend', '', true, status, 1, id || '@${sql.raw(domain)}',
          CASE WHEN status <> 'FAILED' THEN at + interval '1 second' END,
          CASE WHEN status IN ('DELIVERED', 'OPENED', 'CLICKED', 'COMPLAINED') THEN at + interval '3 seconds' END,
          CASE WHEN status IN ('OPENED', 'CLICKED') THEN at + interval '1 hour' END,
          CASE WHEN status = 'CLICKED' THEN at + interval '2 hours' END,
          CASE WHEN status = 'BOUNCED' THEN at + interval '4 seconds' END,
          CASE WHEN status = 'COMPLAINED' THEN at + interval '1 day' END,
          CASE WHEN status = 'FAILED' THEN at + interval '1 second' END,
          CASE WHEN status = 'FAILED' THEN '550 5.1.1 <reader' || g || '@example.com>: no such user, "quoted"' END,
          at, at
        FROM shaped`)
    }
    await db.execute(sql`
      INSERT INTO email_history (email_id, project_id, at, kind, detail)
      SELECT id, project_id, opened_at + interval '1 minute', 'unsubscribed', '{"via":"link"}'::jsonb
      FROM emails WHERE campaign_id = ${campaign.id} AND status = 'CLICKED' AND random() < 0.02`)
    await db.execute(sql`UPDATE campaigns SET status = 'SENT' WHERE id = ${campaign.id}`)
    await db.execute(sql`VACUUM (ANALYZE) emails, email_history`)
    const generateSeconds = round((performance.now() - generateStarted) / 1000)

    const exports: Record<string, unknown> = {}
    for (const [name, query] of [
      ['all', ''],
      ['opened', '?state=opened'],
    ] as const) {
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      const rssStartMb = server.rssMb()
      server.resetPeak()
      const cpuBefore = server.cpuMs()
      const samples: number[] = []
      const sampler = setInterval(() => samples.push(server.rssMb()), 1_000)
      const got = await download(`${server.url}/campaigns/${campaign.id}/recipients.csv${query}`, headers)
      clearInterval(sampler)
      const cpuAfter = server.cpuMs()
      const rows = got.lines - 1
      // An autovacuum worker ending during the export takes its CPU out of PostgreSQL's sum: no figure then.
      const perThousand = (ms: number) => (ms < 0 ? null : round((ms / Math.max(1, rows)) * 1000, 2))
      exports[name] = {
        ...got,
        rows,
        rowsPerSecond: Math.round(rows / got.seconds),
        rssMb: { start: rssStartMb, peak: server.peakRssMb(), end: server.rssMb(), everySecond: samples },
        cpuMsPerThousandRows: {
          server: perThousand(cpuAfter.server - cpuBefore.server),
          postgres: perThousand(cpuAfter.postgres - cpuBefore.postgres),
        },
      }
    }
    const all = exports.all as { seconds: number; rows: number }
    reportResult('recipients-csv.json', {
      bench: 'recipients-csv',
      cores: availableParallelism(),
      loadAverage: loadavg().map((load) => round(load, 2)),
      database: serverEnv.DATABASE_URL ? 'DATABASE_URL' : 'embedded',
      recipients: recipientCount,
      generateSeconds,
      exports,
      bars: { seconds: 60 },
      pass: all.rows === recipientCount && all.seconds <= 60,
      at: new Date().toISOString(),
    })
  } finally {
    await database.close()
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
