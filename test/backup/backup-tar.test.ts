import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { readTar, tarEnd, tarHeader, tarPadding } from '../../src/db/backup-tar.js'
import { walSegmentNames } from '../../src/db/backup-wal.js'
import { cliSandbox } from '../helpers/cli-process.js'

const { dataDir: newDir } = cliSandbox()

const longPath = `uploads/${'a'.repeat(60)}/${'b'.repeat(60)}/${'c'.repeat(40)}.png`

function archive(): Buffer {
  const content = Buffer.from('hello, tar\n')
  return Buffer.concat([
    tarHeader({ path: 'uploads', type: 'directory', mode: 0o700, size: 0, mtimeSeconds: 0 }),
    tarHeader({ path: longPath, type: 'file', mode: 0o600, size: content.length, mtimeSeconds: 1_700_000_000 }),
    content,
    tarPadding(content.length),
    tarEnd,
  ])
}

describe('the backup archive format', () => {
  it('is a tar that system tar lists, long paths included, and reads back the same', async () => {
    const file = path.join(newDir('mailroom-tar-'), 'archive.tar')
    writeFileSync(file, archive())
    expect(execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n')).toEqual(['uploads/', longPath])

    const read: { path: string; type: string; body: string }[] = []
    for await (const entry of readTar(Readable.from([archive()]))) {
      const chunks: Buffer[] = []
      for await (const chunk of entry.body) chunks.push(chunk)
      read.push({ path: entry.path, type: entry.type, body: Buffer.concat(chunks).toString() })
    }
    expect(read).toEqual([
      { path: 'uploads', type: 'directory', body: '' },
      { path: longPath, type: 'file', body: 'hello, tar\n' },
    ])
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
