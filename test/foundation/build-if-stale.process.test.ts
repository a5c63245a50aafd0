import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * A copy of the checkout's shape whose build scripts only write their output and note that they ran, so
 * `npm start`'s first step is tested without compiling the server and the dashboard again and again.
 */
function sandboxCheckout(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-build-if-stale-'))
  cpSync(path.join(root, 'scripts/build-if-stale.ts'), path.join(dir, 'scripts/build-if-stale.ts'))
  const fakeBuild = (output: string, name: string) =>
    `node -e "require('fs').mkdirSync('${path.dirname(output)}',{recursive:true});require('fs').writeFileSync('${output}','');require('fs').appendFileSync('builds.log','${name}\\n')"`
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'sandbox',
      private: true,
      scripts: {
        'build:server': fakeBuild('dist/cli.js', 'server'),
        'build:web': fakeBuild('web/dist/index.html', 'dashboard'),
      },
    }),
  )
  for (const input of ['src/cli.ts', 'tsconfig.json', 'tsconfig.build.json', 'web/src/main.tsx', 'web/index.html']) {
    mkdirSync(path.dirname(path.join(dir, input)), { recursive: true })
    writeFileSync(path.join(dir, input), '')
  }
  writeFileSync(path.join(dir, 'builds.log'), '')
  // Written a minute ago: every build made from now on is newer than its sources.
  const minuteAgo = new Date(Date.now() - 60_000)
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    utimesSync(path.join(dir, entry), minuteAgo, minuteAgo)
  }
  return dir
}

/** `npm start`'s first step in the sandbox: what it built, and how long it took. */
function buildIfStale(dir: string): { built: string[]; ms: number } {
  const before = readFileSync(path.join(dir, 'builds.log'), 'utf8')
  const started = performance.now()
  const run = spawnSync(process.execPath, ['scripts/build-if-stale.ts'], { cwd: dir, encoding: 'utf8' })
  const ms = performance.now() - started
  expect(run.status, run.stderr).toBe(0)
  const after = readFileSync(path.join(dir, 'builds.log'), 'utf8')
  return { built: after.slice(before.length).split('\n').filter(Boolean), ms }
}

/** A source edited now, after the last build. */
function edit(dir: string, file: string): void {
  const now = new Date()
  utimesSync(path.join(dir, file), now, now)
}

describe("npm start's build step", () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('builds what is missing, nothing on an unchanged checkout, and only what a changed source belongs to', () => {
    const dir = sandboxCheckout()
    dirs.push(dir)
    expect(buildIfStale(dir).built).toEqual(['server', 'dashboard'])

    const unchanged = buildIfStale(dir)
    expect(unchanged.built).toEqual([])
    // Node itself takes most of it; the builds took 19 s (150 s on a busy machine) before.
    expect(unchanged.ms).toBeLessThan(3_000)

    edit(dir, 'src/cli.ts')
    expect(buildIfStale(dir).built).toEqual(['server'])
    edit(dir, 'web/index.html')
    expect(buildIfStale(dir).built).toEqual(['dashboard'])
  })
})
