import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { isBuilt, serverBuild } from '../scripts/build-if-stale.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file that holds the outcome of this run's build of dist once it ended: `ok`, or the compiler's output. */
    cliBuildOutcome: string
  }
}

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * The `process` tests spawn the built CLI (`node dist/cli.js`, as `npm start` runs it), not the sources through
 * tsx: no per-process transpiling, and what is tested is what ships. The server's TypeScript is compiled once per
 * run, or not at all when dist is newer than every input; the dashboard's build is not needed by these tests.
 * The compiler runs beside the unit and api tiers (setup does not wait for it; global setups all run before any
 * test): the process tier, which runs after them, waits for its outcome (`waitForCliBuild`).
 */
export function setup(project: TestProject): () => Promise<void> {
  const outcome = path.join(tmpdir(), `mailroom-cli-build-${process.pid}-${Date.now().toString(36)}`)
  project.provide('cliBuildOutcome', outcome)
  if (isBuilt(serverBuild)) {
    writeFileSync(outcome, 'ok')
    return async () => {}
  }
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const build = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe' })
  let output = ''
  build.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  build.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const ended = new Promise<void>((resolve) => {
    build.on('close', (code) => {
      writeFileSync(outcome, code === 0 ? 'ok' : `tsc -p tsconfig.build.json exited with ${code}:\n${output}`)
      resolve()
    })
  })
  return async () => {
    // A run cut short (a filter without process files) must not leave the compiler behind.
    if (build.exitCode === null) build.kill()
    await ended
  }
}
