// Load generator, run as its own process (`tsx bench/lib/load.ts '<json>'`, or the JSON on stdin) so it never
// shares a CPU scheduler slot or event loop with the server it measures. Prints one JSON line.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { text } from 'node:stream/consumers'
import autocannon from 'autocannon'

export type LoadSpec = {
  url: string
  method: 'GET' | 'POST'
  headers: Record<string, string>
  /** JSON body; every `{{email}}` becomes a fresh address per request so rows are not all the same contact. */
  body?: string
  /**
   * A file of paths on the url's host, one a line, taken in turn (one per request): many tracking links, so no single
   * one reaches its rate limit. A file because a command-line argument holds at most 128 kB.
   */
  pathsFile?: string
  /** Paths (and queries) taken in turn, one per request, instead of `url`'s own: e.g. a different id each time. */
  paths?: string[]
  connections: number
  durationSeconds: number
  /** An open-loop load: this many requests per second over all connections, `amount` in all, then it stops. */
  overallRate?: number
  amount?: number
}

export type LoadResult = {
  requests: number
  requestsPerSecond: number
  latencyMs: { p50: number; p95: number; p99: number; max: number }
  errors: number
  non2xx: number
  statusCodes: Record<string, number>
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return 0
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)
  return Math.round((sorted[Math.max(0, index)] ?? 0) * 100) / 100
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? (await text(process.stdin))) as LoadSpec
  const paths =
    spec.paths ?? (spec.pathsFile ? readFileSync(spec.pathsFile, 'utf8').split('\n').filter(Boolean) : undefined)
  const latencies: number[] = []
  const prefix = randomBytes(3).toString('hex')
  let counter = 0
  const result = await autocannon({
    url: spec.url,
    method: spec.method,
    headers: spec.headers,
    connections: spec.connections,
    duration: spec.durationSeconds,
    ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
    ...(spec.amount ? { amount: spec.amount } : {}),
    requests: [
      {
        setupRequest: (request) => {
          counter += 1
          const path = paths?.[counter % paths.length]
          const routed = path ? { ...request, path } : request
          return spec.body
            ? { ...routed, body: spec.body.replaceAll('{{email}}', `load-${prefix}-${counter}@example.com`) }
            : routed
        },
      },
    ],
    setupClient: (client) => {
      client.on('response', (_status: number, _bytes: number, responseTimeMs: number) => latencies.push(responseTimeMs))
    },
  })
  const sorted = Float64Array.from(latencies).sort()
  const statusCodes: Record<string, number> = {}
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0
  const output: LoadResult = {
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.total / (spec.amount ? result.duration : spec.durationSeconds)),
    latencyMs: {
      p50: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95),
      p99: percentile(sorted, 0.99),
      max: percentile(sorted, 1),
    },
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
  }
  process.stdout.write(`${JSON.stringify(output)}\n`)
}

await main()
