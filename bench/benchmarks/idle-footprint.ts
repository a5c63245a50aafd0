import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { postgresRssMb, startBenchServer } from '../lib/server.js'
import type { Benchmark } from '../lib/types.js'

export const idleFootprint: Benchmark = {
  name: 'idle-footprint',
  description:
    'start-up time to a ready /health (first start creates the embedded cluster; restart reuses it), and resident memory of the server and of PostgreSQL at rest',
  async run({ serverEnv }) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-idle-'))
    try {
      const first = await startBenchServer(serverEnv, { dataDir })
      await first.stop()
      const server = await startBenchServer(serverEnv, { dataDir })
      try {
        // Let start-up garbage settle before reading memory at rest.
        await new Promise((resolve) => setTimeout(resolve, 2_000))
        return {
          firstStartupMs: first.startupMs,
          restartStartupMs: server.startupMs,
          serverRssMb: server.rssMb(),
          postgresRssMb: serverEnv.DATABASE_URL ? null : postgresRssMb(server.pid),
        }
      } finally {
        await server.stop()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
}
