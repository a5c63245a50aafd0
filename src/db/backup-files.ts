import { createHash } from 'node:crypto'
import { type Dirent, promises as fs } from 'node:fs'
import path from 'node:path'
import type { ManifestFile } from './backup-format.js'
import { tarHeader, tarPadding } from './backup-tar.js'

const chunkBytes = 256 * 1024

/**
 * Cluster directories whose contents a base backup leaves out: PostgreSQL recreates or resets them at start
 * ("Making a Base Backup Using the Low Level API"). pg_wal keeps its subdirectories and is filled with the
 * backup's own WAL instead.
 */
const walDirectory = 'postgres/pg_wal'
const contentsSkipped = new Set([
  'postgres/pg_replslot',
  'postgres/pg_dynshmem',
  'postgres/pg_notify',
  'postgres/pg_serial',
  'postgres/pg_snapshots',
  'postgres/pg_stat_tmp',
  'postgres/pg_subtrans',
])

/** The server's own files: the lock of the running process, and the cluster's run-time files. */
const filesSkipped = new Set([
  'mailroom.lock',
  'postgres/postmaster.pid',
  'postgres/postmaster.opts',
  'postgres/backup_label',
  'postgres/tablespace_map',
])

function isSkippedName(name: string): boolean {
  // Temporary files, the relation cache (rebuilt at start) and the Unix socket with its lock file.
  return name.startsWith('pgsql_tmp') || name === 'pg_internal.init' || name.startsWith('.s.PGSQL.')
}

export type TreeEntry = { relativePath: string; absolutePath: string; type: 'file' | 'directory' }

async function listDirectory(absolutePath: string): Promise<Dirent[]> {
  try {
    return (await fs.readdir(absolutePath, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))
  } catch (err) {
    // A database dropped while the copy runs; the WAL replay drops it again.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

/** What a backup copies from DATA_DIR, directories before their contents; `exclude` holds absolute paths. */
export async function* walkDataDir(dataDir: string, exclude: ReadonlySet<string>): AsyncGenerator<TreeEntry> {
  async function* walk(relativeDir: string, filesToo: boolean): AsyncGenerator<TreeEntry> {
    for (const dirent of await listDirectory(path.join(dataDir, relativeDir))) {
      const relativePath = relativeDir ? `${relativeDir}/${dirent.name}` : dirent.name
      const absolutePath = path.join(dataDir, relativePath)
      if (exclude.has(absolutePath) || filesSkipped.has(relativePath) || isSkippedName(dirent.name)) continue
      if (dirent.isDirectory()) {
        yield { relativePath, absolutePath, type: 'directory' }
        if (!contentsSkipped.has(relativePath)) yield* walk(relativePath, filesToo && relativePath !== walDirectory)
      } else if (dirent.isFile() && filesToo) {
        yield { relativePath, absolutePath, type: 'file' }
      }
    }
  }
  yield* walk('', true)
}

export function directoryEntry(relativePath: string, mode: number): Buffer {
  return tarHeader({ path: relativePath, type: 'directory', mode, size: 0, mtimeSeconds: Date.now() / 1000 })
}

/** A file held in memory (the header, backup_label, the manifest). */
export function* bufferEntry(relativePath: string, content: Buffer, files: ManifestFile[]): Generator<Buffer> {
  files.push({ path: relativePath, size: content.length, sha256: createHash('sha256').update(content).digest('hex') })
  yield tarHeader({
    path: relativePath,
    type: 'file',
    mode: 0o600,
    size: content.length,
    mtimeSeconds: Date.now() / 1000,
  })
  yield content
  yield tarPadding(content.length)
}

/**
 * Streams one file of a live cluster as a tar entry and records it in `files`. A file removed before it is
 * opened is left out; one that shrinks while read is padded with zeros, one that grows is cut at the size it
 * had when opened: the WAL replayed at the first start rewrites whatever changed during the copy.
 */
export async function* fileEntry(entry: TreeEntry, files: ManifestFile[]): AsyncGenerator<Buffer> {
  let handle: fs.FileHandle
  try {
    handle = await fs.open(entry.absolutePath, 'r')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  try {
    const stat = await handle.stat()
    const hash = createHash('sha256')
    yield tarHeader({
      path: entry.relativePath,
      type: 'file',
      mode: stat.mode,
      size: stat.size,
      mtimeSeconds: stat.mtimeMs / 1000,
    })
    let position = 0
    while (position < stat.size) {
      const wanted = Math.min(chunkBytes, stat.size - position)
      const { bytesRead, buffer } = await handle.read({ buffer: Buffer.alloc(wanted), position })
      // At the end of a file that shrank, the zeros already in the buffer pad it to the announced size.
      const chunk = bytesRead === 0 ? buffer : buffer.subarray(0, bytesRead)
      hash.update(chunk)
      position += chunk.length
      yield chunk
    }
    yield tarPadding(stat.size)
    files.push({ path: entry.relativePath, size: stat.size, sha256: hash.digest('hex') })
  } finally {
    await handle.close()
  }
}
