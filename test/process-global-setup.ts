import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const builtCli = path.join(root, 'dist', 'cli.js')
/** What the server's TypeScript build reads: a change to any of them makes dist stale. */
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((name) => path.join(root, name))

/** The latest modification time under `file` (itself, or every file below a directory). */
function newestChange(file: string): number {
  const stats = statSync(file)
  if (!stats.isDirectory()) return stats.mtimeMs
  let newest = stats.mtimeMs
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestChange(path.join(file, entry)))
  return newest
}

/**
 * The `process` tests spawn the built CLI (`node dist/cli.js`, as `npm start` runs it), not the sources through
 * tsx: no per-process transpiling, and what is tested is what ships. The server's TypeScript is compiled once per
 * run, or not at all when dist is newer than every input; the dashboard's build (`npm run build:web`) is not
 * needed by these tests.
 */
export function setup(): void {
  if (existsSync(builtCli) && statSync(builtCli).mtimeMs > Math.max(...inputs.map(newestChange))) return
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
}
