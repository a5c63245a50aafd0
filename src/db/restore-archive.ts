import { createHash } from 'node:crypto'
import { promises as fs } from 'node:fs'
import path from 'node:path'
import {
  backupFormat,
  backupFormatVersion,
  backupHeader,
  backupManifest,
  embeddedPostgresMajor,
  headerEntry,
  type ManifestFile,
  manifestEntry,
  postgresMajor,
} from './backup-format.js'
import { MalformedArchiveError, readTar, type TarEntry } from './backup-tar.js'

export type ArchiveProblem = { kind: 'foreign' | 'truncated' | 'damaged' | 'incompatible'; detail: string }
export type ExtractedArchive = { files: number; postgresVersion: string }

const headerMaxBytes = 64 * 1024
const manifestMaxBytes = 256 * 1024 * 1024

async function readSmall(entry: TarEntry, maxBytes: number): Promise<Buffer | undefined> {
  if (entry.size > maxBytes) return undefined
  const chunks: Buffer[] = []
  for await (const chunk of entry.body) chunks.push(chunk)
  return Buffer.concat(chunks)
}

function parseJson(content: Buffer): unknown {
  try {
    return JSON.parse(content.toString('utf8'))
  } catch {
    return undefined
  }
}

/** A relative path that stays inside the target directory. */
function isSafePath(entryPath: string): boolean {
  return (
    entryPath.length > 0 &&
    !entryPath.includes('\\') &&
    entryPath.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
  )
}

async function writeFile(entry: TarEntry, target: string): Promise<ManifestFile> {
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 })
  const handle = await fs.open(target, 'wx', entry.mode & 0o700)
  const hash = createHash('sha256')
  let size = 0
  try {
    for await (const chunk of entry.body) {
      hash.update(chunk)
      size += chunk.length
      await handle.write(chunk)
    }
    await handle.sync()
  } finally {
    await handle.close()
  }
  return { path: entry.path, size, sha256: hash.digest('hex') }
}

/**
 * Unpacks a backup into `target` (an empty directory), checking as it goes: the first entry must be a Mailroom
 * backup header for the PostgreSQL major version installed here, and the last the manifest, which must list
 * exactly the files unpacked, with their sizes and SHA-256.
 */
async function extract(source: AsyncIterable<Buffer>, target: string): Promise<ExtractedArchive | ArchiveProblem> {
  const entries = readTar(source)
  let first: IteratorResult<TarEntry>
  try {
    first = await entries.next()
  } catch (err) {
    if (err instanceof MalformedArchiveError && err.reason === 'malformed') {
      return { kind: 'foreign', detail: 'it is not a tar archive' }
    }
    throw err
  }
  const header =
    first.done || first.value.path !== headerEntry ? undefined : await readSmall(first.value, headerMaxBytes)
  const parsedHeader = backupHeader.safeParse(header && parseJson(header))
  if (!header || !parsedHeader.success) return { kind: 'foreign', detail: `it does not start with ${headerEntry}` }
  if (parsedHeader.data.version > backupFormatVersion) {
    return {
      kind: 'incompatible',
      detail: `it is in version ${parsedHeader.data.version} of the ${backupFormat} format, newer than this Mailroom reads (${backupFormatVersion})`,
    }
  }
  const { postgresVersion } = parsedHeader.data
  const installedMajor = embeddedPostgresMajor()
  if (postgresMajor(postgresVersion) !== installedMajor) {
    return {
      kind: 'incompatible',
      detail: `it holds a PostgreSQL ${postgresVersion} database and the embedded PostgreSQL here is version ${installedMajor}`,
    }
  }

  const unpacked = new Map<string, ManifestFile>([
    [
      headerEntry,
      { path: headerEntry, size: header.length, sha256: createHash('sha256').update(header).digest('hex') },
    ],
  ])
  const directories = new Set<string>()
  let manifest: Buffer | undefined
  for await (const entry of entries) {
    if (manifest) return { kind: 'damaged', detail: `${entry.path} follows the manifest` }
    if (!isSafePath(entry.path) || unpacked.has(entry.path) || directories.has(entry.path)) {
      return { kind: 'damaged', detail: `it holds an unexpected entry ${entry.path}` }
    }
    if (entry.path === manifestEntry) {
      manifest = await readSmall(entry, manifestMaxBytes)
      if (!manifest) return { kind: 'damaged', detail: 'its manifest is too large' }
    } else if (entry.type === 'directory') {
      directories.add(entry.path)
      await fs.mkdir(path.join(target, entry.path), { recursive: true, mode: 0o700 })
    } else {
      unpacked.set(entry.path, await writeFile(entry, path.join(target, entry.path)))
    }
  }
  const parsedManifest = backupManifest.safeParse(manifest && parseJson(manifest))
  if (!parsedManifest.success) return { kind: 'damaged', detail: 'it has no valid manifest at its end' }

  const listed = parsedManifest.data.files
  for (const expected of listed) {
    const found = unpacked.get(expected.path)
    if (!found) return { kind: 'damaged', detail: `${expected.path} is listed in the manifest but missing` }
    if (found.size !== expected.size || found.sha256 !== expected.sha256) {
      return { kind: 'damaged', detail: `${expected.path} does not match its size and SHA-256 in the manifest` }
    }
  }
  if (listed.length !== unpacked.size) return { kind: 'damaged', detail: 'it holds files its manifest does not list' }
  const missingDirectory = parsedManifest.data.directories.find((directory) => !directories.has(directory))
  if (missingDirectory) return { kind: 'damaged', detail: `the directory ${missingDirectory} is missing` }
  return { files: listed.length - 1, postgresVersion }
}

/** `extract`, with the ways a foreign, cut or corrupted file fails turned into a problem to report. */
export async function extractArchive(
  source: AsyncIterable<Buffer>,
  target: string,
): Promise<ExtractedArchive | ArchiveProblem> {
  let started = false
  const counted = (async function* () {
    for await (const chunk of source) {
      started = true
      yield chunk
    }
  })()
  try {
    return await extract(counted, target)
  } catch (err) {
    if (err instanceof MalformedArchiveError) {
      return err.reason === 'truncated'
        ? { kind: 'truncated', detail: err.message }
        : { kind: 'damaged', detail: err.message }
    }
    const code = (err as NodeJS.ErrnoException).code
    // zlib: a file that is not gzip fails on its first bytes; one cut short fails at its end.
    if (code === 'Z_DATA_ERROR' && !started) return { kind: 'foreign', detail: 'it is not gzip-compressed' }
    if (code === 'Z_DATA_ERROR') return { kind: 'damaged', detail: 'its compressed data is corrupt' }
    if (code === 'Z_BUF_ERROR') return { kind: 'truncated', detail: String(err) }
    throw err
  }
}
