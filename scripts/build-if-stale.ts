import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/*
 * `npm start` runs this first (Node 24 runs TypeScript as is): each build, the server's and the dashboard's,
 * runs only when its output is missing or older than one of its inputs, so restarting an unchanged checkout
 * starts at once. The tests' own builds (test/process-global-setup.ts, test/web/browser.ts) ask the same
 * question here. A failed build leaves its output missing or old (noEmitOnError, vite's empty outDir), so the
 * next start builds again.
 */

/** One build: its output and inputs (relative to the checkout) and the npm script that makes it. */
export type Build = { name: string; output: string; inputs: readonly string[]; script: string }

// A dependency change (the lock file) changes the dashboard's bundle and may change the compiler's output.
const dependencies = ['package.json', 'package-lock.json']

export const serverBuild: Build = {
  name: 'server',
  output: 'dist/cli.js',
  inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', ...dependencies],
  script: 'build:server',
}

export const dashboardBuild: Build = {
  name: 'dashboard',
  output: 'web/dist/index.html',
  inputs: [
    'web/src',
    'web/index.html',
    'web/vite.config.ts',
    'web/tsconfig.json',
    // The build's last step: the brotli and gzip copies.
    'scripts/precompress.ts',
    ...dependencies,
  ],
  script: 'build:web',
}

const checkout = fileURLToPath(new URL('..', import.meta.url))

/**
 * The latest modification time of `file`, or of anything below it when it is a directory (0 when it does not
 * exist): a directory's own time counts, so a deleted or renamed source makes a build stale too.
 */
function newestChange(file: string): number {
  const stats = statSync(file, { throwIfNoEntry: false })
  if (!stats) return 0
  if (!stats.isDirectory()) return stats.mtimeMs
  let newest = stats.mtimeMs
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestChange(path.join(file, entry)))
  return newest
}

/** Whether the build's output exists and was written after the last change to any of its inputs. */
export function isBuilt(build: Build, root = checkout): boolean {
  const output = statSync(path.join(root, build.output), { throwIfNoEntry: false })
  return (
    output !== undefined &&
    output.mtimeMs >= Math.max(...build.inputs.map((input) => newestChange(path.join(root, input))))
  )
}

if (import.meta.main) {
  for (const build of [serverBuild, dashboardBuild]) {
    if (isBuilt(build)) continue
    console.log(`Building the ${build.name}: its sources changed since the last build`)
    const result = spawnSync('npm', ['run', build.script], { cwd: checkout, stdio: 'inherit' })
    if (result.status !== 0) process.exit(result.status ?? 1)
  }
}
