import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import type { LightMyRequestResponse } from 'fastify'
import sharp from 'sharp'
import { expect } from 'vitest'
import { type Account, bearer } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'

export type Part = {
  name: string
  /** Sent as `filename="..."`; quotes and backslashes are the caller's business. */
  filename?: string
  /** Sent as RFC 5987 `filename*=UTF-8''...` (percent-encoded), which can carry CR or LF. */
  encodedFilename?: string
  contentType?: string
  body: Buffer | string
}

/** A multipart/form-data body written by hand, so tests control every byte (two files, odd names). */
export function multipart(parts: Part[]): { payload: Buffer; contentType: string } {
  const boundary = `----mailroom-test-${randomBytes(8).toString('hex')}`
  const chunks: Buffer[] = []
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`
    if (part.filename !== undefined) disposition += `; filename="${part.filename}"`
    if (part.encodedFilename !== undefined) disposition += `; filename*=UTF-8''${part.encodedFilename}`
    const headers = [`Content-Disposition: ${disposition}`]
    if (part.contentType) headers.push(`Content-Type: ${part.contentType}`)
    chunks.push(Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`))
    chunks.push(Buffer.from(part.body))
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** POST /uploads/image with these parts and the account's secret key. */
export function postParts(server: TestServer, account: Account, parts: Part[]): Promise<LightMyRequestResponse> {
  const { payload, contentType } = multipart(parts)
  return server.app.inject({
    method: 'POST',
    url: '/uploads/image',
    headers: { ...bearer(account.secretKey), 'content-type': contentType },
    payload,
  })
}

/** The usual upload: one file in the `image` field. */
export function postImage(
  server: TestServer,
  account: Account,
  body: Buffer | string,
  filename = 'image.png',
  contentType = 'image/png',
): Promise<LightMyRequestResponse> {
  return postParts(server, account, [{ name: 'image', filename, contentType, body }])
}

/** A JPEG carrying EXIF (an owner's name and a GPS position): what a phone photo looks like. */
export function jpegWithExif(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#3366cc' } })
    .withExif({
      IFD0: { Copyright: 'exif-owner-secret', Artist: 'exif-artist-secret' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' },
    })
    .jpeg()
    .toBuffer()
}

export function png(width = 32, height = 24): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: '#cc663380' } })
    .png()
    .toBuffer()
}

/** An animated GIF of `colours.length` frames, 100 ms each, looping forever. */
export async function animatedGif(colours = ['#ff0000', '#00ff00', '#0000ff']): Promise<Buffer> {
  const frames = await Promise.all(
    colours.map((background) =>
      sharp({ create: { width: 20, height: 10, channels: 3, background } })
        .png()
        .toBuffer(),
    ),
  )
  return sharp(frames, { join: { animated: true } })
    .gif({ delay: colours.map(() => 100), loop: 0 })
    .toBuffer()
}

/** The whole error body the spec gives every failure. */
export function errorBody(code: string, statusCode: number, extra: Record<string, unknown> = {}) {
  return {
    success: false,
    error: { code, message: expect.any(String), statusCode, requestId: expect.any(String), ...extra },
    timestamp: expect.any(String),
  }
}

/** Neither a row (GET /uploads) nor a file under DATA_DIR/uploads is left for the project. */
export async function expectNothingStored(server: TestServer, account: Account): Promise<void> {
  const list = await server.app.inject({ method: 'GET', url: '/uploads', headers: bearer(account.secretKey) })
  expect(list.json()).toMatchObject({ data: [], total: 0 })
  const folder = path.join(server.config.dataDir, 'uploads', account.project.id)
  expect(existsSync(folder) ? readdirSync(folder) : []).toEqual([])
}

/** The path of an upload URL, to fetch it from the test server (PUBLIC_URL names another port). */
export function pathOf(url: string): string {
  return new URL(url).pathname
}
