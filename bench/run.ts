// `npm run bench [-- name ...] [--quick] [--against <ref> [--rounds N]]`: runs benchmarks against freshly started
// servers and prints JSON; with --against, on this checkout's build and the ref's, interleaved, with their ratios.
import { execSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { prepareAgainst, runAgainst, type Side } from './lib/against.js'
import { RefError } from './lib/build-ref.js'
import { root } from './lib/server.js'
import type { Benchmark } from './lib/types.js'

/**
 * Loaded by name, so a run loads only the benchmarks it runs: under `--against`, an older build runs this
 * harness, and one benchmark reaching into sources that build lacks must not stop the others.
 */
const benchmarks: Record<string, () => Promise<Benchmark>> = {
  'send-accept': async () => (await import('./benchmarks/send.js')).sendAccept,
  'send-batch': async () => (await import('./benchmarks/send.js')).sendBatch,
  track: async () => (await import('./benchmarks/track.js')).track,
  click: async () => (await import('./benchmarks/click.js')).click,
  delivery: async () => (await import('./benchmarks/delivery.js')).delivery,
  relay: async () => (await import('./benchmarks/relay.js')).relay,
  campaign: async () => (await import('./benchmarks/campaign.js')).campaign,
  'contacts-import': async () => (await import('./benchmarks/contacts-import.js')).contactsImport,
  'idle-footprint': async () => (await import('./benchmarks/idle-footprint.js')).idleFootprint,
  'segment-count': async () => (await import('./benchmarks/segment-count.js')).segmentCount,
  'segment-compute': async () => (await import('./benchmarks/segment-compute.js')).segmentCompute,
  workflows: async () => (await import('./benchmarks/workflows.js')).workflows,
  'web-bundle': async () => (await import('./benchmarks/web-bundle.js')).webBundle,
  webhooks: async () => (await import('./benchmarks/webhooks.js')).webhooks,
  emails: async () => (await import('./benchmarks/emails.js')).emails,
  'recipients-csv': async () => (await import('./benchmarks/recipients-csv.js')).recipientsCsv,
}

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
  const { values, positionals: names } = parseArgs({
    allowPositionals: true,
    options: {
      quick: { type: 'boolean', default: false },
      against: { type: 'string' },
      rounds: { type: 'string', default: '3' },
    },
  })
  const quick = values.quick
  const known = Object.keys(benchmarks)
  const unknown = names.filter((name) => !known.includes(name))
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${known.join(', ')}`)
    process.exit(2)
  }
  const against = values.against === undefined ? undefined : againstBuild(values.against, Number(values.rounds))
  // Only what changed since the last build (in CI, the test run's builds of the same sources stand); its output
  // goes to stderr, as stdout carries the results' JSON. Under --against the parent has built both sides.
  if (!process.env.BENCH_SKIP_BUILD) {
    execSync('node scripts/build-if-stale.ts', { cwd: root, stdio: ['ignore', 2, 2] })
  }
  const selected = names.length > 0 ? names : known
  if (against) {
    const comparisons = await runAgainst(against, {
      names: selected,
      quick,
      rounds: Number(values.rounds),
    })
    process.stdout.write(
      `${JSON.stringify({ date: new Date().toISOString(), quick, machine: machine(), comparisons }, null, 2)}\n`,
    )
    return
  }
  const resultsDir = path.join(root, 'bench', 'results')
  mkdirSync(resultsDir, { recursive: true })
  for (const name of selected) {
    const bench = await (benchmarks[name] as () => Promise<Benchmark>)()
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
    if (!quick && !process.env.BENCH_NO_RESULTS) writeFileSync(path.join(resultsDir, `${bench.name}.json`), `${json}\n`)
    // A quick run is the smoke test CI runs: a request that failed means the benchmark proves nothing.
    if (quick && failedRequests(result) > 0) {
      console.error(`${bench.name}: requests failed in the quick run`)
      process.exitCode = 1
    }
  }
}

/** The other side of `--against`, built before anything runs; a ref that names nothing or does not build exits 2. */
function againstBuild(ref: string, rounds: number): Side {
  if (!Number.isInteger(rounds) || rounds < 3) {
    console.error('--rounds: at least 3 rounds, so a median and a spread mean something')
    process.exit(2)
  }
  try {
    return prepareAgainst(ref)
  } catch (error) {
    if (!(error instanceof RefError)) throw error
    console.error(error.message)
    process.exit(2)
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
