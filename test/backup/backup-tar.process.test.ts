import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { Header } from 'tar'
import { describe, expect, it } from 'vitest'
import { MalformedArchiveError, readTar, tarEnd, tarHeader, tarPadding } from '../../src/db/backup-tar.js'
import { walSegmentNames } from '../../src/db/backup-wal.js'
import { cliSandbox } from '../helpers/cli-process.js'

const { dataDir: newDir } = cliSandbox()

const longPath = `uploads/${'a'.repeat(60)}/${'b'.repeat(60)}/${'c'.repeat(40)}.png`
/** A name longer than ustar's 100-byte field, so no split fits: it needs a pax extended header. */
const longName = `uploads/${'d'.repeat(120)}.png`
const content = Buffer.from('hello, tar\n')

function fileEntry(entryPath: string): Buffer[] {
  return [
    tarHeader({ path: entryPath, type: 'file', mode: 0o100600, size: content.length, mtimeSeconds: 1_700_000_000 }),
    content,
    tarPadding(content.length),
  ]
}

function archive(): Buffer {
  return Buffer.concat([
    tarHeader({ path: 'uploads', type: 'directory', mode: 0o700, size: 0, mtimeSeconds: 0 }),
    ...fileEntry(longPath),
    ...fileEntry(longName),
    tarEnd,
  ])
}

async function read(tar: Buffer): Promise<{ path: string; type: string; mode: number; body: string }[]> {
  const entries: { path: string; type: string; mode: number; body: string }[] = []
  // In small chunks, as a decompression stream hands them over.
  const chunks = Array.from({ length: Math.ceil(tar.length / 700) }, (_, i) => tar.subarray(i * 700, (i + 1) * 700))
  for await (const entry of readTar(Readable.from(chunks))) {
    const body: Buffer[] = []
    for await (const chunk of entry.body) body.push(chunk)
    entries.push({ path: entry.path, type: entry.type, mode: entry.mode, body: Buffer.concat(body).toString() })
  }
  return entries
}

async function refusal(tar: Buffer): Promise<{ reason: string; message: string }> {
  const err = await read(tar).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  if (!(err instanceof MalformedArchiveError)) throw new Error(`not refused: ${String(err)}`)
  return { reason: err.reason, message: err.message }
}

describe('the backup archive format', () => {
  it('is a tar that system tar lists, long paths included, and reads back the same', async () => {
    const file = path.join(newDir('mailroom-tar-'), 'archive.tar')
    writeFileSync(file, archive())
    expect(execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n')).toEqual([
      'uploads/',
      longPath,
      longName,
    ])
    expect(await read(archive())).toEqual([
      { path: 'uploads', type: 'directory', mode: 0o700, body: '' },
      { path: longPath, type: 'file', mode: 0o600, body: 'hello, tar\n' },
      { path: longName, type: 'file', mode: 0o600, body: 'hello, tar\n' },
    ])
  })

  it('refuses an archive cut short, between entries or inside one, or with a damaged or unsupported entry', async () => {
    const whole = archive()
    const truncated = { reason: 'truncated', message: 'the archive ends before its end' }
    expect(await refusal(whole.subarray(0, whole.length - tarEnd.length))).toEqual(truncated)
    expect(await refusal(whole.subarray(0, 512 + 512 + 5))).toEqual(truncated)

    const damaged = Buffer.from(whole)
    damaged[512 + 10] = 0x21
    expect(await refusal(damaged)).toEqual({
      reason: 'malformed',
      message: 'it is not valid tar (checksum failure)',
    })

    const symlink = Buffer.alloc(512)
    new Header({ path: 'uploads/link', type: 'SymbolicLink', linkpath: '/etc/passwd', size: 0, mode: 0o777 }).encode(
      symlink,
    )
    expect(await refusal(Buffer.concat([symlink, tarEnd]))).toEqual({
      reason: 'malformed',
      message: 'unsupported entry type for uploads/link',
    })
  })

  it('lists the WAL segments of a backup across a 4 GB boundary of the WAL', () => {
    expect(walSegmentNames('0000000100000000000000FE', '000000010000000100000001', 16 * 1024 * 1024)).toEqual([
      '0000000100000000000000FE',
      '0000000100000000000000FF',
      '000000010000000100000000',
      '000000010000000100000001',
    ])
    expect(walSegmentNames('000000020000000300000007', '000000020000000300000007', 16 * 1024 * 1024)).toEqual([
      '000000020000000300000007',
    ])
  })
})
