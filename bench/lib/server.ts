import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { findFreePort } from '../../src/db/embedded.js'
import { cpuMsOf, descendants } from './cpu.js'

export const root = fileURLToPath(new URL('../..', import.meta.url))

export type BenchServer = {
  url: string
  pid: number
  startupMs: number
  /** Peak resident memory of the server process (PostgreSQL excluded) since the last reset. */
  peakRssMb(): number
  resetPeak(): void
  rssMb(): number
  /** CPU time used so far by the server process and by its embedded PostgreSQL (all its processes). */
  cpuMs(): { server: number; postgres: number }
  stop(): Promise<void>
}

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  } catch {
    return 0
  }
}

/**
 * Starts the compiled server (`dist/cli.js start`, or `api` alone) as a user would, on embedded PostgreSQL in a fresh data dir,
 * or on `DATABASE_URL` when the bench is given one.
 */
export async function startBenchServer(
  env: Record<string, string> = {},
  options: { dataDir?: string; command?: 'start' | 'api' } = {},
): Promise<BenchServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
  const port = await findFreePort()
  const started = Date.now()
  // The server as the README starts it; Node refuses --cpu-prof in NODE_OPTIONS, so profiling flags for the
  // server come through BENCH_NODE_ARGS.
  const nodeArgs = ['--max-semi-space-size=16', ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [])]
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, 'dist/cli.js', options.command ?? 'start'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      // The SMTP relay runs, as by default, on free ports, so a port another program holds fails no benchmark.
      SMTP_RELAY_PORT: '0',
      SMTP_RELAY_TLS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited during start:\n${output}`)
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    )
    if (healthy) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const startupMs = Date.now() - started
  const pid = child.pid ?? 0
  let peakKb = rssKb(pid)
  const sampler = setInterval(() => {
    peakKb = Math.max(peakKb, rssKb(pid))
  }, 100)
  return {
    url,
    pid,
    startupMs,
    peakRssMb: () => Math.round(Math.max(peakKb, rssKb(pid)) / 1024),
    resetPeak: () => {
      peakKb = rssKb(pid)
    },
    rssMb: () => Math.round(rssKb(pid) / 1024),
    cpuMs: () => ({ server: cpuMsOf(pid), postgres: descendants(pid).reduce((sum, child) => sum + cpuMsOf(child), 0) }),
    async stop() {
      clearInterval(sampler)
      child.kill('SIGTERM')
      await once(child, 'exit')
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Resident memory of the embedded PostgreSQL processes started for this server's data dir. */
export function postgresRssMb(serverPid: number): number {
  const children = readFileSync(`/proc/${serverPid}/task/${serverPid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
  let totalKb = 0
  for (const pid of children) {
    const postmaster = Number(pid)
    totalKb += rssKb(postmaster)
    const backends = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
    for (const backend of backends) totalKb += rssKb(Number(backend))
  }
  return Math.round(totalKb / 1024)
}
