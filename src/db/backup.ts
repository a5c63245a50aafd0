import { existsSync, promises as fs, readdirSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as delay } from 'node:timers/promises'
import { constants, createGzip } from 'node:zlib'
import type pg from 'pg'
import type { DataDirConfig } from '../config.js'
import { openClusterSession } from './backup-connection.js'
import { bufferEntry, directoryEntry, fileEntry, walkDataDir } from './backup-files.js'
import {
  BackupError,
  type BackupHeader,
  type BackupManifest,
  backupFormat,
  backupFormatVersion,
  headerEntry,
  type ManifestFile,
  manifestEntry,
} from './backup-format.js'
import { tarEnd } from './backup-tar.js'
import { walSegmentNames } from './backup-wal.js'

export type BackupSummary = { file: string; files: number; bytes: number; startLsn: string; stopLsn: string }

const serverModeBackupMessage =
  'mailroom backup copies the embedded database in DATA_DIR. With DATABASE_URL the database is your ' +
  "PostgreSQL server's: back it up with pg_dump or its base backups (see the README, Backups)."

async function queryOne<T>(client: pg.Client, text: string, values: unknown[] = []): Promise<T> {
  const result = await client.query(text, values)
  const row = result.rows[0] as T | undefined
  if (!row) throw new Error(`no row from: ${text}`)
  return row
}

/**
 * The archive, produced as it is written: the DATA_DIR files are read between pg_backup_start and
 * pg_backup_stop on one session, then the WAL written meanwhile is added. A temporary replication slot made
 * before the start keeps that WAL from being recycled by checkpoints during a long copy.
 */
async function* archive(client: pg.Client, dataDir: string, exclude: ReadonlySet<string>, manifest: BackupManifest) {
  const files: ManifestFile[] = manifest.files
  const { server_version: postgresVersion } = await queryOne<{ server_version: string }>(client, 'SHOW server_version')
  const header: BackupHeader = {
    format: backupFormat,
    version: backupFormatVersion,
    createdAt: new Date().toISOString(),
    postgresVersion,
  }
  yield* bufferEntry(headerEntry, Buffer.from(`${JSON.stringify(header, null, 2)}\n`), files)

  await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [`mailroom_backup_${process.pid}`])
  const label = `mailroom backup ${header.createdAt}`
  const started = await queryOne<{ lsn: string }>(client, 'SELECT pg_backup_start($1, fast => true)::text AS lsn', [
    label,
  ])
  manifest.startLsn = started.lsn

  for await (const entry of walkDataDir(dataDir, exclude)) {
    if (entry.type === 'directory') {
      manifest.directories.push(entry.relativePath)
      yield directoryEntry(entry.relativePath, 0o700)
    } else {
      yield* fileEntry(entry, files)
    }
  }

  const stopped = await queryOne<{ lsn: string; labelfile: string; spcmapfile: string }>(
    client,
    'SELECT lsn::text, labelfile, spcmapfile FROM pg_backup_stop(wait_for_archive => false)',
  )
  manifest.stopLsn = stopped.lsn
  yield* bufferEntry('postgres/backup_label', Buffer.from(stopped.labelfile), files)
  if (stopped.spcmapfile) yield* bufferEntry('postgres/tablespace_map', Buffer.from(stopped.spcmapfile), files)

  // The WAL up to the stop location must be on disk before its files are read.
  for (let waitedMs = 0; ; waitedMs += 50) {
    const { flushed } = await queryOne<{ flushed: boolean }>(
      client,
      'SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS flushed',
      [stopped.lsn],
    )
    if (flushed) break
    if (waitedMs > 30_000) throw new Error(`the WAL was not flushed up to ${stopped.lsn}`)
    await delay(50)
  }
  const wal = await queryOne<{ first: string; last: string; segment_bytes: string }>(
    client,
    `SELECT pg_walfile_name($1::pg_lsn) AS first, pg_walfile_name($2::pg_lsn) AS last,
            (SELECT setting FROM pg_settings WHERE name = 'wal_segment_size') AS segment_bytes`,
    [started.lsn, stopped.lsn],
  )
  const walDir = path.join(dataDir, 'postgres', 'pg_wal')
  const segmentBytes = Number.parseInt(wal.segment_bytes, 10)
  const history = readdirSync(walDir).filter((name) => /^[0-9A-F]{8}\.history$/.test(name))
  for (const name of [...history, ...walSegmentNames(wal.first, wal.last, segmentBytes)]) {
    const absolutePath = path.join(walDir, name)
    if (!existsSync(absolutePath)) throw new Error(`WAL file ${name}, needed by the backup, is missing`)
    const before = files.length
    yield* fileEntry({ relativePath: `postgres/pg_wal/${name}`, absolutePath, type: 'file' }, files)
    if (files.length === before) throw new Error(`WAL file ${name}, needed by the backup, is missing`)
  }
  await client.query('SELECT pg_drop_replication_slot($1)', [`mailroom_backup_${process.pid}`])

  yield* bufferEntry(manifestEntry, Buffer.from(`${JSON.stringify(manifest)}\n`), [])
  yield tarEnd
}

/**
 * Writes a consistent copy of the embedded database and the rest of DATA_DIR to `file` while the server
 * runs, with PostgreSQL's online backup API. The file appears only once complete.
 */
export async function createBackup(
  config: DataDirConfig,
  file: string,
  log: (message: string) => void,
): Promise<BackupSummary> {
  if (config.databaseUrl) throw new BackupError(serverModeBackupMessage)
  const { dataDir } = config
  if (!existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))) {
    throw new BackupError(`There is no embedded database in ${dataDir} to back up.`)
  }
  const tablespaces = path.join(dataDir, 'postgres', 'pg_tblspc')
  if (existsSync(tablespaces) && readdirSync(tablespaces).length > 0) {
    throw new BackupError('The embedded database has tablespaces outside DATA_DIR; mailroom backup cannot copy them.')
  }
  const target = path.resolve(file)
  if (!existsSync(path.dirname(target))) throw new BackupError(`The directory of ${target} does not exist.`)
  const partial = `${target}.partial-${process.pid}`
  const manifest: BackupManifest = { format: backupFormat, startLsn: '', stopLsn: '', directories: [], files: [] }
  const session = await openClusterSession(dataDir, log)
  try {
    await pipeline(
      Readable.from(archive(session.client, dataDir, new Set([target, partial]), manifest)),
      createGzip({ level: constants.Z_BEST_SPEED }),
      (await fs.open(partial, 'wx', 0o600)).createWriteStream(),
    )
    const written = await fs.open(partial, 'r+')
    try {
      await written.sync()
    } finally {
      await written.close()
    }
    await fs.rename(partial, target)
  } catch (err) {
    await fs.rm(partial, { force: true })
    throw err
  } finally {
    await session.close()
  }
  const { size } = await fs.stat(target)
  return {
    file: target,
    files: manifest.files.length,
    bytes: size,
    startLsn: manifest.startLsn,
    stopLsn: manifest.stopLsn,
  }
}
