import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** One filter's verdict on a message: its total and the rules that fired, with their scores. */
export type Verdict = { score: number; rules: Record<string, number> }

export type SpamFilter = {
  name: 'spamassassin' | 'rspamd'
  version: string
  score(raw: Buffer, envelope: { from: string; to: string }): Promise<Verdict>
  close(): Promise<void>
}

async function versionOf(command: string, args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await run(command, args)
    return stdout.trim().split('\n')[0]
  } catch {
    return undefined
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000

/**
 * SpamAssassin with its shipped rules, offline: no DNS tests and no Bayes, but with the score set a networked
 * install uses (set 1: only `-L` switches to the local set), as the measurements were made.
 */
async function spamAssassin(): Promise<SpamFilter | undefined> {
  const version = await versionOf('spamassassin', ['--version'])
  if (!version) return undefined
  const options = [
    'dns_available no',
    'use_bayes 0',
    'use_auto_whitelist 0',
    'skip_rbl_checks 1',
    // Every rule with its exact score (the Status header rounds the total to a tenth).
    'add_header all Tests _TESTSSCORES(,)_',
  ].flatMap((line) => ['--cf', line])
  return {
    name: 'spamassassin',
    version,
    async score(raw) {
      const child = spawn('spamassassin', options, { stdio: ['pipe', 'pipe', 'ignore'] })
      const chunks: Buffer[] = []
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
      const done = new Promise<void>((resolve, reject) => {
        child.on('error', reject)
        child.on('close', () => resolve())
      })
      child.stdin.end(raw)
      await done
      const head =
        Buffer.concat(chunks)
          .toString('latin1')
          .split(/\r?\n\r?\n/)[0] ?? ''
      const tests = /^X-Spam-Tests: (.*(?:\r?\n[ \t].*)*)/m.exec(head)?.[1]?.replace(/\s+/g, '') ?? ''
      const rules: Record<string, number> = {}
      for (const entry of tests.split(',')) {
        const [name, value] = entry.split('=')
        if (name && value && name !== 'none') rules[name] = Number(value)
      }
      return { score: round(Object.values(rules).reduce((sum, value) => sum + value, 0)), rules }
    },
    close: async () => {},
  }
}

/** How long Rspamd may take to compile its rules and listen, on a busy 2-core machine. */
const rspamdStartMs = 180_000

/**
 * Rspamd with its shipped configuration, run for this script only: one scanning worker on a loopback port, its
 * state in a temporary directory, short DNS timeouts (offline, every lookup fails fast; no Redis).
 */
async function rspamd(): Promise<SpamFilter | undefined> {
  const version = await versionOf('rspamd', ['--version'])
  if (!version || !(await versionOf('rspamc', ['--help']))) return undefined
  const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-rspamd-'))
  for (const sub of ['local.d', 'override.d', 'db', 'run', 'log']) mkdirSync(path.join(dir, sub))
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  writeFileSync(path.join(dir, 'local.d/worker-normal.inc'), `bind_socket = "127.0.0.1:${port}";\ncount = 1;\n`)
  for (const worker of ['controller', 'proxy', 'fuzzy']) {
    writeFileSync(path.join(dir, `override.d/worker-${worker}.inc`), 'enabled = false;\n')
  }
  writeFileSync(path.join(dir, 'local.d/options.inc'), 'dns { timeout = 0.2s; retransmits = 1; }\n')
  writeFileSync(path.join(dir, 'override.d/logging.inc'), 'type = "console";\nlevel = "error";\n')
  const asRoot = process.getuid?.() === 0
  // Rspamd drops to its own user when started by root; its state directory must be writable by it.
  if (asRoot) await run('chmod', ['-R', 'a+rwX', dir])
  const daemon = spawn(
    'rspamd',
    [
      '-f',
      ...(asRoot ? ['-u', '_rspamd', '-g', '_rspamd'] : []),
      ...['LOCAL_CONFDIR', 'DBDIR', 'RUNDIR', 'LOGDIR'].flatMap((name, index) => [
        '--var',
        `${name}=${index === 0 ? dir : path.join(dir, ['', 'db', 'run', 'log'][index] ?? '')}`,
      ]),
    ],
    { stdio: 'ignore' },
  )
  const host = `127.0.0.1:${port}`
  const scan = async (file: string, args: string[]) =>
    JSON.parse((await run('rspamc', ['-h', host, '-j', ...args, file])).stdout) as {
      score: number
      symbols?: Record<string, { score: number }>
    }
  const probe = path.join(dir, 'probe.eml')
  writeFileSync(probe, 'From: a@example.com\r\nTo: b@example.net\r\nSubject: probe\r\n\r\nprobe\r\n')
  const started = Date.now()
  for (;;) {
    try {
      await scan(probe, [])
      break
    } catch {
      if (Date.now() - started > rspamdStartMs || daemon.exitCode !== null) {
        daemon.kill()
        rmSync(dir, { recursive: true, force: true })
        return undefined
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000))
    }
  }
  let counter = 0
  return {
    name: 'rspamd',
    version,
    async score(raw, envelope) {
      const file = path.join(dir, `message-${counter++}.eml`)
      writeFileSync(file, raw)
      // The same made-up connection for every message: only the message differs between two scans.
      const answer = await scan(file, [
        '--ip',
        '203.0.113.25',
        '--helo',
        'out.mailroom.example',
        '--hostname',
        'out.mailroom.example',
        '--from',
        envelope.from,
        '--rcpt',
        envelope.to,
      ])
      const rules: Record<string, number> = {}
      for (const [name, symbol] of Object.entries(answer.symbols ?? {})) rules[name] = round(symbol.score)
      return { score: round(answer.score), rules }
    },
    async close() {
      const exited = new Promise((resolve) => daemon.once('exit', resolve))
      daemon.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The filters installed on this machine (none: the caller reports that and skips). */
export async function startSpamFilters(): Promise<SpamFilter[]> {
  const filters = await Promise.all([spamAssassin(), rspamd()])
  return filters.filter((filter) => filter !== undefined)
}
