import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { postgresRssMb, startBenchServer } from '../lib/server.js'
import type { Benchmark } from '../lib/types.js'

/** Long enough to average the loops' ticks (the slowest polls every 2 s) over 100 Hz CPU clock ticks. */
const idleSeconds = 10

export const idleFootprint: Benchmark = {
  name: 'idle-footprint',
  description:
    'start-up time to a ready /health (first start creates the embedded cluster; restart reuses it), resident memory of the server and of PostgreSQL at rest, and the CPU both use at rest (the background loops polling)',
  async run({ serverEnv }) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-idle-'))
    try {
      const first = await startBenchServer(serverEnv, { dataDir })
      await first.stop()
      const server = await startBenchServer(serverEnv, { dataDir })
      try {
        // Let start-up garbage settle before reading memory at rest.
        await new Promise((resolve) => setTimeout(resolve, 2_000))
        const before = server.cpuMs()
        await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1_000))
        const after = server.cpuMs()
        return {
          firstStartupMs: first.startupMs,
          restartStartupMs: server.startupMs,
          serverRssMb: server.rssMb(),
          postgresRssMb: serverEnv.DATABASE_URL ? null : postgresRssMb(server.pid),
          idleCpuMsPerSecond: {
            server: Math.round((after.server - before.server) / idleSeconds),
            postgres: serverEnv.DATABASE_URL ? null : Math.round((after.postgres - before.postgres) / idleSeconds),
          },
        }
      } finally {
        await server.stop()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
}
