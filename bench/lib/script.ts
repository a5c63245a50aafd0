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
  return JSON.parse(output) as Record<string, unknown>
}
