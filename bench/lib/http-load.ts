import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { LoadResult, LoadSpec } from './load.js'
import { root } from './server.js'

/** Runs the load generator in its own process and returns what it measured. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/load.ts', JSON.stringify(spec)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
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

/** Warm-up, then several measured runs; the median run by throughput is the headline. */
export async function measure(spec: Omit<LoadSpec, 'connections' | 'durationSeconds'>, plan: RunPlan) {
  await runLoad({ ...spec, connections: plan.connections, durationSeconds: plan.warmupSeconds })
  const runs: LoadResult[] = []
  for (let i = 0; i < plan.runs; i++) {
    runs.push(await runLoad({ ...spec, connections: plan.connections, durationSeconds: plan.runSeconds }))
  }
  const byThroughput = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)
  const median = byThroughput[Math.floor(byThroughput.length / 2)] ?? runs[0]
  return { connections: plan.connections, runSeconds: plan.runSeconds, median, runs }
}
