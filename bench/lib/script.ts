import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { root } from './server.js'

/** Runs a standalone bench script (`bench/<name>.ts`, which prints its JSON result) in its own process. */
export async function runBenchScript(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`${script} exited with ${code}`)
  // An in-process server logs to stdout (one JSON line per entry, e.g. the job queue's connection ended by the
  // database stopping at close); the result is the rest.
  const result = output
    .split('\n')
    .filter((line) => !line.startsWith('{"level":'))
    .join('\n')
  return JSON.parse(result) as Record<string, unknown>
}
