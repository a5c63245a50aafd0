// `npm run bench [-- name ...] [--quick]`: runs benchmarks against freshly started servers and prints JSON.
import { execSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { campaign } from './benchmarks/campaign.js'
import { contactsImport } from './benchmarks/contacts-import.js'
import { delivery } from './benchmarks/delivery.js'
import { idleFootprint } from './benchmarks/idle-footprint.js'
import { relay } from './benchmarks/relay.js'
import { segmentCompute } from './benchmarks/segment-compute.js'
import { segmentCount } from './benchmarks/segment-count.js'
import { sendAccept, sendBatch } from './benchmarks/send.js'
import { track } from './benchmarks/track.js'
import { webBundle } from './benchmarks/web-bundle.js'
import { workflows } from './benchmarks/workflows.js'
import { root } from './lib/server.js'
import type { Benchmark } from './lib/types.js'

const benchmarks: Benchmark[] = [
  sendAccept,
  sendBatch,
  track,
  delivery,
  relay,
  campaign,
  contactsImport,
  idleFootprint,
  segmentCount,
  segmentCompute,
  workflows,
  webBundle,
]

function machine() {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    postgres: process.env.DATABASE_URL ? 'server (DATABASE_URL)' : 'embedded',
    // Other work on the machine moves throughput; CPU per request (cpuMsPerRequest) moves much less.
    loadAverage: os.loadavg().map((load) => Number(load.toFixed(2))),
  }
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/**
 * A fresh database per benchmark on the given server, so runs never see each other's rows; dropped afterwards
 * so benchmarking never leaves anything behind on a shared server.
 */
async function withBenchDatabase<T>(name: string, run: (serverEnv: Record<string, string>) => Promise<T>): Promise<T> {
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) return run({})
  const database = `mailroom_bench_${name.replaceAll('-', '_')}_${randomBytes(3).toString('hex')}`
  await adminQuery(adminUrl, `CREATE DATABASE ${database}`)
  try {
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    return await run({ DATABASE_URL: url.toString() })
  } finally {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const quick = args.includes('--quick')
  const names = args.filter((arg) => !arg.startsWith('--'))
  const unknown = names.filter((name) => !benchmarks.some((bench) => bench.name === name))
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${benchmarks.map((b) => b.name).join(', ')}`)
    process.exit(2)
  }
  // Only what changed since the last build (in CI, the test run's builds of the same sources stand); its output
  // goes to stderr, as stdout carries the results' JSON.
  execSync('node scripts/build-if-stale.ts', { cwd: root, stdio: ['ignore', 2, 2] })
  const selected = names.length > 0 ? benchmarks.filter((bench) => names.includes(bench.name)) : benchmarks
  const resultsDir = path.join(root, 'bench', 'results')
  mkdirSync(resultsDir, { recursive: true })
  for (const bench of selected) {
    const measured = await withBenchDatabase(bench.name, (serverEnv) => bench.run({ quick, serverEnv }))
    const result = {
      benchmark: bench.name,
      description: bench.description,
      date: new Date().toISOString(),
      quick,
      machine: machine(),
      ...measured,
    }
    const json = JSON.stringify(result, null, 2)
    process.stdout.write(`${json}\n`)
    if (!quick) writeFileSync(path.join(resultsDir, `${bench.name}.json`), `${json}\n`)
    // A quick run is the smoke test CI runs: a request that failed means the benchmark proves nothing.
    if (quick && failedRequests(result) > 0) {
      console.error(`${bench.name}: requests failed in the quick run`)
      process.exitCode = 1
    }
  }
}

/** The `errors` and `non2xx` counts anywhere in a result. */
function failedRequests(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + failedRequests(item), 0)
  if (typeof value !== 'object' || value === null) return 0
  return Object.entries(value).reduce(
    (sum, [key, item]) =>
      sum + ((key === 'errors' || key === 'non2xx') && typeof item === 'number' ? item : failedRequests(item)),
    0,
  )
}

await main()
