import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { LoadResult, LoadSpec } from './load.js'
import { root } from './server.js'

/** Runs the load generator in its own process and returns what it measured. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  // On stdin: a spec with thousands of paths is more than one command-line argument may hold.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/load.ts'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  child.stdin.end(JSON.stringify(spec))
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`load generator exited with ${code}`)
  return JSON.parse(output.trim().split('\n').pop() ?? '{}') as LoadResult
}

export type RunPlan = { warmupSeconds: number; runs: number; runSeconds: number; connections: number }

export const fullPlan: RunPlan = { warmupSeconds: 3, runs: 3, runSeconds: 10, connections: 32 }
export const quickPlan: RunPlan = { warmupSeconds: 1, runs: 1, runSeconds: 2, connections: 8 }

export type CpuClock = () => { server: number; postgres: number }

/**
 * Warm-up, then several measured runs; the median run by throughput is the headline. With a CPU clock it also
 * reports CPU milliseconds per request over the measured runs, which other load on the machine disturbs far
 * less than throughput does.
 */
export async function measure(spec: Omit<LoadSpec, 'connections' | 'durationSeconds'>, plan: RunPlan, cpu?: CpuClock) {
  await runLoad({ ...spec, connections: plan.connections, durationSeconds: plan.warmupSeconds })
  const before = cpu?.()
  const runs: LoadResult[] = []
  for (let i = 0; i < plan.runs; i++) {
    runs.push(await runLoad({ ...spec, connections: plan.connections, durationSeconds: plan.runSeconds }))
  }
  const after = cpu?.()
  const requests = runs.reduce((sum, run) => sum + run.requests, 0)
  const perRequest = (used: number) => Math.round((used / Math.max(1, requests)) * 1000) / 1000
  // `total` is the headline of `--against` comparisons: a change may move work between the server and PostgreSQL.
  const cpuMsPerRequest =
    before && after
      ? {
          server: perRequest(after.server - before.server),
          postgres: perRequest(after.postgres - before.postgres),
          total: perRequest(after.server - before.server + after.postgres - before.postgres),
        }
      : undefined
  const byThroughput = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)
  const median = byThroughput[Math.floor(byThroughput.length / 2)] ?? runs[0]
  return { connections: plan.connections, runSeconds: plan.runSeconds, median, cpuMsPerRequest, runs }
}
