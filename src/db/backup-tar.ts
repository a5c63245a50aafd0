import { Header, Parser, Pax, type ReadEntry } from 'tar'

/**
 * The tar entries of a backup, encoded and parsed by node-tar (`tar`): its Header (with a pax extended header
 * for a path or size ustar cannot hold) and its Parser. The entry bodies are streamed by our code, not by
 * node-tar's packer (tar.c, WriteEntry), so a backup never holds a file in memory and keeps the control a live
 * cluster needs: a file that shrinks while it is copied is padded with zeros (the WAL replay rewrites those
 * pages) and one that vanishes is left out, as pg_basebackup does, where WriteEntry fails the whole archive
 * ("encountered unexpected EOF", ENOENT). The padding of a body to whole blocks and the two zero blocks that
 * end an archive are plain zeros node-tar does not export.
 */
const block = 512

type TarEntryType = 'file' | 'directory'

export type TarEntryHeader = { path: string; type: TarEntryType; mode: number; size: number; mtimeSeconds: number }

export class MalformedArchiveError extends Error {
  constructor(
    readonly reason: 'truncated' | 'malformed',
    message: string,
  ) {
    super(message)
  }
}

/** The header block of an entry, after a pax extended header when the path or the size does not fit ustar. */
export function tarHeader(entry: TarEntryHeader): Buffer {
  const path = entry.type === 'directory' ? `${entry.path}/` : entry.path
  const size = entry.type === 'file' ? entry.size : 0
  const mtime = new Date(Math.floor(entry.mtimeSeconds) * 1000)
  const header = Buffer.alloc(block)
  const needsPax = new Header({
    path,
    type: entry.type === 'file' ? 'File' : 'Directory',
    // Only the permission bits: a stat mode also carries the file type.
    mode: entry.mode & 0o7777,
    uid: 0,
    gid: 0,
    size,
    mtime,
  }).encode(header)
  return needsPax ? Buffer.concat([new Pax({ path, size, mtime }).encode(), header]) : header
}

export function tarPadding(size: number): Buffer {
  return Buffer.alloc((block - (size % block)) % block)
}

/** Two zero blocks end an archive. */
export const tarEnd = Buffer.alloc(2 * block)

export type TarEntry = TarEntryHeader & { body: AsyncIterable<Buffer> }

type ParseEvent = { kind: 'entry'; entry: ReadEntry } | { kind: 'data'; data: Buffer } | { kind: 'end' }

function entryType(entry: ReadEntry): TarEntryType {
  if (entry.type === 'File' || entry.type === 'OldFile') return 'file'
  if (entry.type === 'Directory') return 'directory'
  throw new MalformedArchiveError('malformed', `unsupported entry type for ${entry.path}`)
}

/**
 * The entries of a tar archive, in order. Each entry's body must be read (or is skipped) before the next
 * entry comes; an archive that stops before its end blocks, has an invalid header or carries anything but
 * files and directories throws.
 *
 * The parser is fed one chunk of the source at a time, only once what it found in the previous chunk has
 * been consumed, so at most one chunk is held. Any warning of the parser refuses the archive: it would skip
 * the bad block and read on. The parser reports an archive cut in the middle of an entry only when ended,
 * and one cut between entries not at all, so the source ending before its `eof` (the two zero blocks) is a
 * truncated archive.
 */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const chunks = source[Symbol.asyncIterator]()
  const parser = new Parser()
  const events: ParseEvent[] = []
  let failure: MalformedArchiveError | undefined
  let archiveEnded = false
  const fail = (message: string) => {
    failure ??= new MalformedArchiveError('malformed', message)
  }
  parser.on('warn', (_code: string, message: string) => fail(`it is not valid tar (${message})`))
  parser.on('error', (err: Error) => fail(`it is not valid tar (${err.message})`))
  // Entries of a type the parser does not know, and oversized pax headers.
  parser.on('ignoredEntry', (entry: ReadEntry) => fail(`unsupported entry type for ${entry.path}`))
  parser.on('eof', () => {
    archiveEnded = true
  })
  parser.on('entry', (entry: ReadEntry) => {
    events.push({ kind: 'entry', entry })
    // 'end' first: a 'data' listener starts the flow, which ends an empty entry at once.
    entry.on('end', () => events.push({ kind: 'end' }))
    entry.on('data', (data: Buffer) => events.push({ kind: 'data', data }))
  })

  /** What the parser found next, fed more of the source as needed; undefined after the end of the archive. */
  async function next(): Promise<ParseEvent | undefined> {
    for (;;) {
      if (failure) throw failure
      const event = events.shift()
      if (event) return event
      if (archiveEnded) return undefined
      const chunk = await chunks.next()
      if (chunk.done) throw new MalformedArchiveError('truncated', 'the archive ends before its end')
      parser.write(chunk.value)
    }
  }

  try {
    for (let event = await next(); event; event = await next()) {
      if (event.kind !== 'entry') continue
      const { entry } = event
      let bodyRead = false
      const body = (async function* () {
        for (let item = await next(); item?.kind === 'data'; item = await next()) yield item.data
        bodyRead = true
      })()
      yield {
        path: entry.path.replace(/\/+$/, ''),
        type: entryType(entry),
        mode: entry.mode ?? 0,
        size: entry.size,
        mtimeSeconds: (entry.mtime?.getTime() ?? 0) / 1000,
        body,
      }
      // Whatever the consumer left unread of the body.
      while (!bodyRead) bodyRead = (await next())?.kind !== 'data'
    }
    // The rest is read, so the decompression checks the end of its stream, and ignored: tar writers may pad
    // an archive past its end blocks.
    while (!(await chunks.next()).done) {}
  } finally {
    await chunks.return?.()
  }
}
