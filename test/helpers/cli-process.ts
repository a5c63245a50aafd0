import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, inject } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
/** As `npm start`: a small young generation, which keeps a busy process's memory flat. */
const nodeOptions = ['--max-semi-space-size=16']

export type CliProcess = {
  child: ChildProcess
  output(): string
  /** Resolves when the output contains `text`; rejects if the process exits first. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>
  /** Resolves with the exit code. */
  exited: Promise<number | null>
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** A built install to run instead of the sources: its directory (holding `dist/cli.js`) and the node binary. */
export type BuiltInstall = { dir: string; node: string }

/**
 * Runs `mailroom <command> [args]` as a separate process, as `npm start` runs it: this checkout's `dist` (built
 * once per run by test/process-global-setup.ts), or a built (and pruned) install.
 */
export type CliOptions = { args?: readonly string[]; install?: BuiltInstall }

export function runCli(
  command: string,
  env: Record<string, string>,
  { args = [], install }: CliOptions = {},
): CliProcess {
  const [node, cwd] = install ? [install.node, install.dir] : [process.execPath, root]
  const child = spawn(node, [...nodeOptions, 'dist/cli.js', command, ...args], {
    cwd,
    // The sinks of these tests check no signatures, so account mail needs no verified domain to start on smtp or
    // ses; test/accounts/system-sender.process.test.ts sets it back to see the refusal.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'info',
      SYSTEM_EMAIL_DKIM: 'relay',
      // The SMTP relay runs, as it does by default, on free ports: several processes of a test share the machine.
      SMTP_RELAY_PORT: '0',
      SMTP_RELAY_TLS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const listeners = new Set<() => void>()
  const append = (chunk: Buffer) => {
    output += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout?.on('data', append)
  child.stderr?.on('data', append)
  const exited = once(child, 'exit').then(([code]) => code as number | null)

  return {
    child,
    output: () => output,
    exited,
    waitForOutput(text, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!output.includes(text)) return
          cleanup()
          resolve()
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`timed out waiting for "${text}"; output so far:\n${output}`))
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          listeners.delete(check)
        }
        listeners.add(check)
        exited.then((code) => {
          if (!output.includes(text)) {
            cleanup()
            reject(new Error(`process exited (${code}) before "${text}"; output:\n${output}`))
          }
        })
        check()
      })
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** The CLI processes and data directories of one test file, killed and removed when the file is done. */
export function cliSandbox() {
  const running: CliProcess[] = []
  const dirs: string[] = []
  beforeAll(waitForCliBuild, 10 * 60_000)
  afterAll(async () => {
    await Promise.all(running.map((process) => process.stop('SIGKILL')))
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  return {
    start(command: string, env: Record<string, string>, options?: CliOptions): CliProcess {
      const process = runCli(command, env, options)
      running.push(process)
      return process
    },
    dataDir(prefix: string): string {
      const dir = mkdtempSync(path.join(tmpdir(), prefix))
      dirs.push(dir)
      return dir
    },
  }
}

/** Waits for the run's build of dist (test/process-global-setup.ts) to end; fails with the compiler's output. */
export async function waitForCliBuild(): Promise<void> {
  const outcome = inject('cliBuildOutcome')
  while (!existsSync(outcome)) await new Promise((resolve) => setTimeout(resolve, 200))
  const text = readFileSync(outcome, 'utf8')
  if (text !== 'ok') throw new Error(text)
}
