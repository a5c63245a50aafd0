/**
 * The POSIX ustar subset a backup uses: regular files and directories, written and read as streams so a
 * backup never holds a file in memory. Written by hand because the format is small and a backup of a live
 * cluster needs control the general tar packages do not give: a file that shrinks while it is copied is
 * padded with zeros (the WAL replay rewrites those pages), as pg_basebackup does.
 */
const block = 512
const maxSize = 8 ** 11 - 1

export type TarEntryType = 'file' | 'directory'

export type TarEntryHeader = { path: string; type: TarEntryType; mode: number; size: number; mtimeSeconds: number }

export class MalformedArchiveError extends Error {
  constructor(
    readonly reason: 'truncated' | 'malformed',
    message: string,
  ) {
    super(message)
  }
}

function writeOctal(header: Buffer, value: number, offset: number, length: number): void {
  header.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'ascii')
}

/** Splits a path longer than the 100-byte name field at a slash into ustar's prefix and name. */
function splitPath(entryPath: string): { prefix: string; name: string } {
  if (Buffer.byteLength(entryPath) <= 100) return { prefix: '', name: entryPath }
  for (let slash = entryPath.indexOf('/'); slash !== -1; slash = entryPath.indexOf('/', slash + 1)) {
    const prefix = entryPath.slice(0, slash)
    const name = entryPath.slice(slash + 1)
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name }
  }
  throw new Error(`path too long for a backup archive: ${entryPath}`)
}

export function tarHeader(entry: TarEntryHeader): Buffer {
  if (entry.size > maxSize) throw new Error(`file too large for a backup archive: ${entry.path}`)
  const header = Buffer.alloc(block)
  const { prefix, name } = splitPath(entry.type === 'directory' ? `${entry.path}/` : entry.path)
  header.write(name, 0, 100, 'utf8')
  writeOctal(header, entry.mode & 0o7777, 100, 8)
  writeOctal(header, 0, 108, 8)
  writeOctal(header, 0, 116, 8)
  writeOctal(header, entry.type === 'file' ? entry.size : 0, 124, 12)
  writeOctal(header, Math.floor(entry.mtimeSeconds), 136, 12)
  header.write(entry.type === 'file' ? '0' : '5', 156, 1, 'ascii')
  header.write('ustar\0' + '00', 257, 8, 'ascii')
  header.write(prefix, 345, 155, 'utf8')
  header.fill(' ', 148, 156)
  writeOctal(header, checksum(header), 148, 7)
  header.write(' ', 155, 1, 'ascii')
  return header
}

export function tarPadding(size: number): Buffer {
  return Buffer.alloc((block - (size % block)) % block)
}

/** Two zero blocks end an archive. */
export const tarEnd = Buffer.alloc(2 * block)

function checksum(header: Buffer): number {
  let sum = 0
  for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0)
  return sum
}

function readOctal(header: Buffer, offset: number, length: number): number {
  const text = header
    .subarray(offset, offset + length)
    .toString('ascii')
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '')
  if (!/^[0-7]+$/.test(text)) throw new MalformedArchiveError('malformed', 'an entry header has an invalid number')
  return Number.parseInt(text, 8)
}

function readString(header: Buffer, offset: number, length: number): string {
  const field = header.subarray(offset, offset + length)
  const end = field.indexOf(0)
  return field.subarray(0, end === -1 ? length : end).toString('utf8')
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  private pending: Buffer[] = []
  private pendingBytes = 0

  constructor(private readonly chunks: AsyncIterator<Buffer>) {}

  private async fill(): Promise<boolean> {
    const next = await this.chunks.next()
    if (next.done) return false
    this.pending.push(next.value)
    this.pendingBytes += next.value.length
    return true
  }

  async take(size: number): Promise<Buffer> {
    while (this.pendingBytes < size) {
      if (!(await this.fill()))
        throw new MalformedArchiveError('truncated', 'the archive ends in the middle of an entry')
    }
    const joined = Buffer.concat(this.pending)
    this.pending = joined.length > size ? [joined.subarray(size)] : []
    this.pendingBytes = joined.length - size
    return joined.subarray(0, size)
  }

  /** The next piece of at most `max` bytes. */
  async piece(max: number): Promise<Buffer> {
    if (this.pendingBytes === 0 && !(await this.fill())) {
      throw new MalformedArchiveError('truncated', 'the archive ends in the middle of a file')
    }
    const first = this.pending[0] ?? Buffer.alloc(0)
    const piece = first.subarray(0, Math.min(max, first.length))
    if (piece.length === first.length) this.pending.shift()
    else this.pending[0] = first.subarray(piece.length)
    this.pendingBytes -= piece.length
    return piece
  }

  /** True when nothing but zero bytes is left (tar writers may pad the end to a record size). */
  async onlyZerosLeft(): Promise<boolean> {
    for (;;) {
      for (const chunk of this.pending) if (chunk.some((byte) => byte !== 0)) return false
      this.pending = []
      this.pendingBytes = 0
      if (!(await this.fill())) return true
    }
  }
}

export type TarEntry = TarEntryHeader & { body: AsyncIterable<Buffer> }

/**
 * The entries of a ustar archive, in order. Each entry's body must be read (or is skipped) before the next
 * entry comes; an archive that stops early or carries anything but files and directories throws.
 */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const reader = new ByteReader(source[Symbol.asyncIterator]())
  for (;;) {
    const header = await reader.take(block)
    if (header.every((byte) => byte === 0)) {
      const second = await reader.take(block)
      if (second.some((byte) => byte !== 0) || !(await reader.onlyZerosLeft())) {
        throw new MalformedArchiveError('malformed', 'data follows the end of the archive')
      }
      return
    }
    if (header.toString('ascii', 257, 262) !== 'ustar' || readOctal(header, 148, 8) !== checksum(header)) {
      throw new MalformedArchiveError('malformed', 'an entry header is not a valid ustar header')
    }
    const typeFlag = header.toString('ascii', 156, 157)
    const type: TarEntryType | undefined =
      typeFlag === '0' || typeFlag === '\0' ? 'file' : typeFlag === '5' ? 'directory' : undefined
    const name = readString(header, 0, 100)
    const prefix = readString(header, 345, 155)
    const entryPath = (prefix ? `${prefix}/${name}` : name).replace(/\/+$/, '')
    if (!type) throw new MalformedArchiveError('malformed', `unsupported entry type for ${entryPath}`)
    const size = type === 'file' ? readOctal(header, 124, 12) : 0
    let left = size
    const body = (async function* () {
      while (left > 0) {
        const piece = await reader.piece(left)
        left -= piece.length
        yield piece
      }
    })()
    yield {
      path: entryPath,
      type,
      mode: readOctal(header, 100, 8),
      size,
      mtimeSeconds: readOctal(header, 136, 12),
      body,
    }
    // Whatever the consumer left unread of the body.
    while (left > 0) left -= (await reader.piece(left)).length
    await reader.take(tarPadding(size).length)
  }
}
