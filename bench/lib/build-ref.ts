import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { root } from './server.js'

/**
 * Where other builds and their dependencies are kept between runs (by commit and by lockfile hash). Not under a
 * home directory: as root, the embedded PostgreSQL runs as a `postgres` user, which must reach its binaries.
 */
const cacheDir = process.env.MAILROOM_BENCH_CACHE ?? path.join(tmpdir(), 'mailroom-bench-builds')

export class RefError extends Error {}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

/** The commit a ref names in this checkout, or a RefError saying it names none. */
export function resolveRef(ref: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])
  } catch {
    throw new RefError(`--against ${ref}: no such commit in this checkout`)
  }
}

function run(command: string, args: string[], cwd: string): void {
  // Output goes to stderr: stdout carries the results' JSON.
  execFileSync(command, args, { cwd, stdio: ['ignore', 2, 2] })
}

/**
 * node_modules for a lockfile: this checkout's own when the lockfiles match, otherwise an `npm ci` of that
 * lockfile, made once and kept under its hash.
 */
function dependenciesFor(source: string): string {
  const lock = readFileSync(path.join(source, 'package-lock.json'))
  const own = readFileSync(path.join(root, 'package-lock.json'))
  if (lock.equals(own) && existsSync(path.join(root, 'node_modules'))) return path.join(root, 'node_modules')
  const hash = createHash('sha256')
    .update(lock)
    .update(readFileSync(path.join(source, 'package.json')))
    .digest('hex')
    .slice(0, 16)
  const target = path.join(cacheDir, 'modules', hash)
  if (existsSync(path.join(target, 'node_modules'))) return path.join(target, 'node_modules')
  const staging = `${target}.partial`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(path.join(source, file), path.join(staging, file))
  console.error(`[against] npm ci for lockfile ${hash}`)
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], staging)
  renameSync(staging, target)
  return path.join(target, 'node_modules')
}

/**
 * The server of `commit` built in a directory of its own (its sources from git, its dependencies by lockfile,
 * `npm run build`), reused when already built. Throws a RefError when it does not build.
 */
export function buildCommit(commit: string): string {
  const target = path.join(cacheDir, 'builds', commit)
  if (existsSync(path.join(target, 'dist', 'cli.js')) && existsSync(path.join(target, '.built'))) return target
  rmSync(target, { recursive: true, force: true })
  mkdirSync(target, { recursive: true })
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${target}"`], { cwd: root, stdio: ['ignore', 2, 2] })
  try {
    symlinkSync(dependenciesFor(target), path.join(target, 'node_modules'), 'dir')
    console.error(`[against] building ${commit.slice(0, 10)}`)
    run('npm', ['run', 'build', '--silent'], target)
  } catch (error) {
    rmSync(target, { recursive: true, force: true })
    throw new RefError(
      `--against ${commit.slice(0, 10)}: the build failed (${(error as Error).message.split('\n')[0]})`,
    )
  }
  writeFileSync(path.join(target, '.built'), '')
  return target
}
