import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { waitForCliBuild } from '../helpers/cli-process.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** A node older than Mailroom's floor on this machine (the system's, outside npm's node_modules/.bin), if any. */
function findOldNode(): { node: string; version: string } | undefined {
  const onPath = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !dir.includes('node_modules'))
  const candidates = new Set([...onPath.map((dir) => path.join(dir, 'node')), '/usr/bin/node', '/usr/local/bin/node'])
  for (const node of candidates) {
    if (!existsSync(node)) continue
    const version = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
    if (Number(version.split('.')[0]) < 22) return { node, version }
  }
  return undefined
}

const old = findOldNode()

describe('the CLI on a Node.js older than it supports', () => {
  beforeAll(waitForCliBuild, 10 * 60_000)

  it.skipIf(!old)('prints one line with the version needed, the one found and how to run it, and fails', () => {
    if (!old) return
    const run = spawnSync(old.node, ['dist/cli.js', '--help'], { cwd: root, encoding: 'utf8' })
    expect(run.status).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^Mailroom needs Node\\.js >=22\\.19 but found ${old.version.replaceAll('.', '\\.')}: .*npm start`),
      ),
    ])
  })
})
