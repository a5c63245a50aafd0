import { describe, expect, it } from 'vitest'
import { PrivateKeyCache } from '../../../src/mail/outbound/compose.js'
import { relayMessage } from '../../../src/mail/outbound/relayed.js'

const tracking = {
  publicUrl: 'https://mail.example.test',
  secret: 'test-secret-test-secret-test-secret',
  emailId: '5a4f3e2d-1c0b-4e7d-8c6b-7e2d1c0b9a8f',
  projectId: '7e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b',
}

function multipart(parts: number): Buffer {
  const body = Array.from(
    { length: parts },
    (_, index) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${index}\r\n`,
  ).join('')
  return Buffer.from(
    'From: a@x.example\r\nTo: b@y.example\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n' +
      `--b\r\nContent-Type: text/html\r\n\r\n<a href="https://shop.example/">x</a>\r\n${body}--b--\r\n`,
  )
}

describe('a relayed message on its compose thread', () => {
  it('goes out tracked when the project tracks', async () => {
    const built = await relayMessage({ relayed: { raw: multipart(2), subject: 's' }, tracking }, new PrivateKeyCache())
    expect(built.raw.toString('latin1')).toContain('https://mail.example.test/t/click/')
    expect(built.subject).toBe('s')
    // The link its click URL names, to be stored before the message leaves.
    expect(built.links).toEqual([{ id: expect.stringMatching(/^[\w-]{16}$/), url: 'https://shop.example/' }])
  })

  it('goes out as the client wrote it when its MIME cannot be split for tracking (over 1,000 parts)', async () => {
    const raw = multipart(1_001)
    const built = await relayMessage({ relayed: { raw, subject: 's' }, tracking }, new PrivateKeyCache())
    expect(built.raw.equals(raw)).toBe(true)
    expect(built.links).toBeUndefined()
  })
})
