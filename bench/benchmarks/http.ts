import { type BenchAccount, createBenchAccount } from '../lib/account.js'
import { fullPlan, measure, quickPlan } from '../lib/http-load.js'
import { startBenchServer } from '../lib/server.js'
import type { Benchmark, BenchOptions } from '../lib/types.js'

type HttpBenchmarkSpec = {
  name: string
  description: string
  path: string
  /** JSON body; `{{email}}` is replaced by a fresh address per request. */
  body(account: BenchAccount): unknown
  key(account: BenchAccount): string
  env?: Record<string, string>
  /** `api` measures acceptance alone, with no worker draining the outbox on the same cores. */
  command?: 'start' | 'api'
  /** Prepares the project (e.g. a sender domain) before the load starts. */
  prepare?(base: string, account: BenchAccount): Promise<void>
}

/** A POST endpoint under sustained load: throughput, latency percentiles, errors and the server's peak RSS. */
export function httpBenchmark(spec: HttpBenchmarkSpec): Benchmark {
  return {
    name: spec.name,
    description: spec.description,
    async run({ quick, serverEnv }: BenchOptions) {
      // Benchmarks measure the server, not the per-project API budget.
      const server = await startBenchServer(
        { RATE_LIMIT_PER_MINUTE: '100000000', ...spec.env, ...serverEnv },
        { command: spec.command },
      )
      try {
        const account = await createBenchAccount(server.url)
        await spec.prepare?.(server.url, account)
        server.resetPeak()
        const result = await measure(
          {
            url: `${server.url}${spec.path}`,
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${spec.key(account)}` },
            body: JSON.stringify(spec.body(account)),
          },
          quick ? quickPlan : fullPlan,
          server.cpuMs,
        )
        return { ...result, serverPeakRssMb: server.peakRssMb() }
      } finally {
        await server.stop()
      }
    },
  }
}
