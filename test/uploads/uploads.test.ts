import { existsSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteProjectUploads } from '../../src/modules/uploads/service.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { expectSecretKeyRequired, notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import {
  animatedGif,
  errorBody,
  expectNothingStored,
  jpegWithExif,
  multipart,
  pathOf,
  png,
  postImage,
  postParts,
} from './upload-helpers.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ worker: false })
})
afterAll(async () => {
  await server.close()
})

type UploadJson = {
  id: string
  url: string
  key: string
  filename: string
  contentType: string
  size: number
  width: number
  height: number
  createdAt: string
}

async function upload(account: Account, body: Buffer, filename = 'image.png'): Promise<UploadJson> {
  const response = await postImage(server, account, body, filename)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<UploadJson>()
}

/** GET of an upload's URL over real HTTP, as a mail client would. */
function fetchUpload(url: string): Promise<Response> {
  return fetch(`${server.url}${pathOf(url)}`)
}

/** A refused upload: 422 with the message a user reads and the `image` field's code (and the decoder's reason). */
function expectRefusedImage(
  response: { statusCode: number; json(): unknown },
  expected: { code: string; message: string; withReason?: boolean; label?: string },
): void {
  expect(response.statusCode, expected.label).toBe(422)
  expect(response.json()).toEqual(
    errorBody('VALIDATION_ERROR', 422, {
      message: expected.message,
      errors: [{ field: 'image', code: expected.code, message: expect.any(String) }],
      ...(expected.withReason ? { details: { reason: expect.any(String) } } : {}),
    }),
  )
}

const list = (account: Account, query = '') =>
  server.app.inject({ method: 'GET', url: `/uploads${query}`, headers: bearer(account.secretKey) })

describe('POST /uploads/image accepts', () => {
  it('a JPEG with EXIF: served back from its URL as a JPEG of the same size with no metadata left', async () => {
    const account = await createAccount(server)
    const original = await jpegWithExif(64, 48)
    expect((await sharp(original).metadata()).exif).toBeDefined()
    expect(original.includes('exif-owner-secret')).toBe(true)

    const response = await postImage(server, account, original, 'holiday photo.jpg', 'image/jpeg')
    expect(response.statusCode).toBe(200)
    const body = response.json<UploadJson>()
    const { id } = account.project
    expect(body).toEqual({
      id: expect.any(String),
      url: `${server.config.publicUrl}/uploads/files/${body.key}`,
      key: expect.stringMatching(new RegExp(`^${id}/\\d{13}-[0-9a-f]{16}\\.jpg$`)),
      filename: 'holiday photo.jpg',
      contentType: 'image/jpeg',
      size: expect.any(Number),
      width: 64,
      height: 48,
      createdAt: expect.any(String),
    })

    const served = await fetchUpload(body.url)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/jpeg')
    expect(served.headers.get('x-content-type-options')).toBe('nosniff')
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(served.headers.get('content-length')).toBe(String(body.size))
    const bytes = Buffer.from(await served.arrayBuffer())
    expect(bytes.length).toBe(body.size)
    const metadata = await sharp(bytes).metadata()
    expect(metadata).toMatchObject({ format: 'jpeg', width: 64, height: 48 })
    expect(metadata.exif).toBeUndefined()
    expect(metadata.xmp).toBeUndefined()
    expect(metadata.icc).toBeUndefined()
    expect(bytes.includes('exif-owner-secret')).toBe(false)
    expect(bytes.includes('exif-artist-secret')).toBe(false)
  })

  it('decides the type from the bytes: a PNG named .jpg and declared image/jpeg is stored and served as PNG', async () => {
    const account = await createAccount(server)
    const response = await postImage(server, account, await png(32, 24), 'actually-a-png.jpg', 'image/jpeg')
    expect(response.statusCode).toBe(200)
    const body = response.json<UploadJson>()
    expect(body).toMatchObject({ contentType: 'image/png', width: 32, height: 24, filename: 'actually-a-png.jpg' })
    expect(body.key).toMatch(/\.png$/)
    const served = await fetchUpload(body.url)
    expect(served.headers.get('content-type')).toBe('image/png')
    expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).format).toBe('png')
  })

  it('keeps an animated GIF animated: every frame, its delay and its loop count', async () => {
    const account = await createAccount(server)
    const body = await upload(account, await animatedGif(), 'spinner.gif')
    expect(body).toMatchObject({ contentType: 'image/gif', width: 20, height: 10 })
    const served = Buffer.from(await (await fetchUpload(body.url)).arrayBuffer())
    const metadata = await sharp(served, { animated: true }).metadata()
    expect(metadata).toMatchObject({ format: 'gif', pages: 3, pageHeight: 10, width: 20, loop: 0 })
    expect(metadata.delay).toEqual([100, 100, 100])
  })

  it('a WebP image', async () => {
    const account = await createAccount(server)
    const webp = await sharp({ create: { width: 16, height: 8, channels: 3, background: '#123456' } })
      .webp()
      .toBuffer()
    const body = await upload(account, webp, 'pic.webp')
    expect(body).toMatchObject({ contentType: 'image/webp', width: 16, height: 8 })
    expect((await fetchUpload(body.url)).headers.get('content-type')).toBe('image/webp')
  })

  it('with a session cookie and X-Project-Id, as the dashboard sends it', async () => {
    const account = await createAccount(server)
    const { payload, contentType } = multipart([
      { name: 'image', filename: 'a.png', contentType: 'image/png', body: await png() },
    ])
    const response = await server.app.inject({
      method: 'POST',
      url: '/uploads/image',
      headers: { cookie: account.cookie, 'x-project-id': account.project.id, 'content-type': contentType },
      payload,
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().key.startsWith(`${account.project.id}/`)).toBe(true)
  })
})

describe('POST /uploads/image refuses, with the error body and nothing stored,', () => {
  const script = '<html><body><script>alert(document.cookie)</script></body></html>'
  const svg =
    '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">' +
    '<script>alert(1)</script><rect width="10" height="10"/></svg>'
  const typeError = errorBody('UNSUPPORTED_MEDIA_TYPE', 415, {
    message: 'The file is not a JPEG, PNG, GIF or WebP image',
    errors: [{ field: 'image', code: 'invalid_type', message: expect.any(String) }],
  })

  it('a script named .png and declared image/png', async () => {
    const account = await createAccount(server)
    const response = await postImage(server, account, script, 'logo.png', 'image/png')
    expect(response.statusCode).toBe(415)
    expect(response.json()).toEqual(typeError)
    await expectNothingStored(server, account)
  })

  it('a PNG signature followed by HTML and script', async () => {
    const account = await createAccount(server)
    const disguised = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from(script),
    ])
    const response = await postImage(server, account, disguised, 'logo.png', 'image/png')
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(
      errorBody('VALIDATION_ERROR', 422, {
        errors: [expect.objectContaining({ field: 'image', code: 'invalid_image' })],
        details: { reason: expect.any(String) },
      }),
    )
    await expectNothingStored(server, account)
  })

  it('an SVG with a script, whatever it is called', async () => {
    const account = await createAccount(server)
    for (const [filename, type] of [
      ['logo.svg', 'image/svg+xml'],
      ['logo.png', 'image/png'],
    ] as const) {
      const response = await postImage(server, account, svg, filename, type)
      expect(response.statusCode).toBe(415)
      expect(response.json()).toEqual(typeError)
    }
    await expectNothingStored(server, account)
  })

  it('a body that is not multipart', async () => {
    const account = await createAccount(server)
    const response = await server.app.inject({
      method: 'POST',
      url: '/uploads/image',
      headers: bearer(account.secretKey),
      payload: { image: 'data:image/png;base64,AAAA' },
    })
    expect(response.statusCode).toBe(415)
    expect(response.json()).toEqual(errorBody('UNSUPPORTED_MEDIA_TYPE', 415))
    await expectNothingStored(server, account)
  })

  it('no file at all (only text fields)', async () => {
    const account = await createAccount(server)
    const response = await postParts(server, account, [{ name: 'image', body: 'not a file' }])
    expectRefusedImage(response, { code: 'invalid_type', message: 'No image file provided' })
    await expectNothingStored(server, account)
  })

  it('a file in a field other than "image"', async () => {
    const account = await createAccount(server)
    const response = await postParts(server, account, [
      { name: 'file', filename: 'a.png', contentType: 'image/png', body: await png() },
    ])
    expectRefusedImage(response, { code: 'invalid_type', message: 'The file must be sent in the field "image"' })
    await expectNothingStored(server, account)
  })

  it('two files, or three', async () => {
    const account = await createAccount(server)
    const image = await png()
    for (const count of [2, 3]) {
      const parts = Array.from({ length: count }, (_, index) => ({
        name: 'image',
        filename: `${index}.png`,
        contentType: 'image/png',
        body: image,
      }))
      const response = await postParts(server, account, parts)
      expectRefusedImage(response, { code: 'too_big', message: 'Send exactly one file' })
    }
    await expectNothingStored(server, account)
  })

  it('an empty file', async () => {
    const account = await createAccount(server)
    const response = await postImage(server, account, Buffer.alloc(0))
    expectRefusedImage(response, { code: 'too_small', message: 'The image file is empty' })
    await expectNothingStored(server, account)
  })

  it('a truncated JPEG and a truncated PNG', async () => {
    const account = await createAccount(server)
    const large = await sharp({
      create: {
        width: 300,
        height: 200,
        channels: 3,
        background: '#888',
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
    const jpeg = await large.clone().jpeg().toBuffer()
    const pngBytes = await large.clone().png().toBuffer()
    for (const [bytes, name] of [
      [jpeg.subarray(0, Math.floor(jpeg.length * 0.7)), 'cut.jpg'],
      [pngBytes.subarray(0, Math.floor(pngBytes.length * 0.7)), 'cut.png'],
    ] as const) {
      const response = await postImage(server, account, bytes, name)
      expectRefusedImage(response, {
        code: 'invalid_image',
        message: 'The image is damaged or truncated and cannot be read',
        withReason: true,
        label: name,
      })
    }
    await expectNothingStored(server, account)
  })

  it('a decompression bomb: a small PNG of 12000x12000 pixels', async () => {
    const account = await createAccount(server)
    const bomb = await sharp({ create: { width: 12_000, height: 12_000, channels: 3, background: '#000' } })
      .png({ compressionLevel: 9 })
      .toBuffer()
    expect(bomb.length).toBeLessThan(1024 * 1024)
    const before = process.memoryUsage().rss
    const response = await postImage(server, account, bomb, 'bomb.png')
    expectRefusedImage(response, {
      code: 'too_big',
      message: 'The image has 12000x12000 pixels; at most 50000000 are accepted',
    })
    // Decoding it would take 432 MB.
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024)
    await expectNothingStored(server, account)
  })

  it('a file name with a path, or with control characters', async () => {
    const account = await createAccount(server)
    const image = await png()
    const filenameError = (message: string) =>
      errorBody('VALIDATION_ERROR', 422, {
        message: 'The file name is not accepted',
        errors: [{ field: 'image.filename', code: 'invalid_string', message }],
      })
    for (const filename of ['../../etc/evil.png', '..\\..\\evil.png', '/tmp/evil.png', '..']) {
      const response = await postParts(server, account, [
        { name: 'image', filename, contentType: 'image/png', body: image },
      ])
      expect(response.statusCode, filename).toBe(422)
      expect(response.json()).toEqual(filenameError('must be a file name, not a path'))
    }
    for (const encodedFilename of ['evil%09name.png', 'evil%00.png', 'evil%1b%5b31m.png']) {
      const response = await postParts(server, account, [
        { name: 'image', encodedFilename, contentType: 'image/png', body: image },
      ])
      expect(response.statusCode, encodedFilename).toBe(422)
      expect(response.json()).toEqual(filenameError('must not contain control characters such as CR or LF'))
    }
    // The multipart parser drops a part whose file name holds CR or LF, so the request has no image at all.
    for (const encodedFilename of ['evil%0d%0aX-Injected: 1.png', 'evil%0a.png']) {
      const response = await postParts(server, account, [
        { name: 'image', encodedFilename, contentType: 'image/png', body: image },
      ])
      expect(response.statusCode, encodedFilename).toBe(422)
      expect(response.json()).toEqual(
        errorBody('VALIDATION_ERROR', 422, { message: 'No image file provided', errors: [expect.any(Object)] }),
      )
    }
    await expectNothingStored(server, account)
  })

  it('a multipart body cut off in the middle', async () => {
    const account = await createAccount(server)
    const { payload, contentType } = multipart([
      { name: 'image', filename: 'a.png', contentType: 'image/png', body: await png() },
    ])
    const response = await server.app.inject({
      method: 'POST',
      url: '/uploads/image',
      headers: { ...bearer(account.secretKey), 'content-type': contentType },
      payload: payload.subarray(0, payload.length - 60),
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual(errorBody('BAD_REQUEST', 400))
    await expectNothingStored(server, account)
  })
})

describe('listing and deleting uploads', () => {
  it('lists a project’s uploads newest first, a page at a time', async () => {
    const account = await createAccount(server)
    const image = await png()
    const made = []
    for (const name of ['one.png', 'two.png', 'three.png']) made.push(await upload(account, image, name))

    const first = await list(account, '?limit=2')
    expect(first.statusCode).toBe(200)
    const page = first.json()
    expect(page).toEqual({ data: [made[2], made[1]], cursor: expect.any(String), hasMore: true, total: 3 })
    const second = (await list(account, `?limit=2&cursor=${page.cursor}`)).json()
    expect(second).toEqual({ data: [made[0]], cursor: '', hasMore: false, total: 0 })

    const bad = await list(account, '?cursor=not-a-cursor')
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toEqual(errorBody('BAD_REQUEST', 400, { message: 'Invalid cursor' }))
  })

  it('deleting an upload removes its file: the URL answers 404 and a second delete 404', async () => {
    const account = await createAccount(server)
    const made = await upload(account, await png())
    const file = path.join(server.config.dataDir, 'uploads', made.key)
    expect(existsSync(file)).toBe(true)
    expect((await fetchUpload(made.url)).status).toBe(200)

    const deleted = await server.app.inject({
      method: 'DELETE',
      url: `/uploads/${made.id}`,
      headers: bearer(account.secretKey),
    })
    expect(deleted.statusCode).toBe(204)
    expect(existsSync(file)).toBe(false)
    const gone = await fetchUpload(made.url)
    expect(gone.status).toBe(404)
    expect(await gone.json()).toEqual(notFoundBody('Upload'))
    expect((await list(account)).json()).toMatchObject({ data: [], total: 0 })

    const again = await server.app.inject({
      method: 'DELETE',
      url: `/uploads/${made.id}`,
      headers: bearer(account.secretKey),
    })
    expect(again.statusCode).toBe(404)
    expect(again.json()).toEqual(notFoundBody('Upload'))
  })

  it('the public file route finds nothing outside the uploads folder or for a name that is not a key', async () => {
    const account = await createAccount(server)
    const made = await upload(account, await png())
    const [projectId] = made.key.split('/')
    for (const url of [
      `/uploads/files/${projectId}/..%2F..%2Fsecret`,
      `/uploads/files/..%2F..%2F/secret`,
      `/uploads/files/${projectId}/${made.key.split('/')[1]?.replace('.png', '.svg')}`,
      `/uploads/files/${projectId}/0000000000000-0000000000000000.png`,
      '/uploads/files/not-a-project/x.png',
    ]) {
      const response = await fetch(`${server.url}${url}`)
      expect(response.status, url).toBe(404)
      expect(await response.json()).toEqual(notFoundBody('Upload'))
    }
  })

  it('deleteProjectUploads removes every upload of one project, files and rows, and no other project’s', async () => {
    const account = await createAccount(server)
    const other = await createAccount(server)
    const image = await png()
    const mine = [await upload(account, image), await upload(account, image)]
    const theirs = await upload(other, image)

    await expect(deleteProjectUploads(server.ctx, account.project.id)).resolves.toEqual({ deleted: 2 })
    for (const made of mine) expect((await fetchUpload(made.url)).status).toBe(404)
    await expectNothingStored(server, account)
    expect(existsSync(path.join(server.config.dataDir, 'uploads', account.project.id))).toBe(false)
    expect((await fetchUpload(theirs.url)).status).toBe(200)
    expect((await list(other)).json()).toMatchObject({ total: 1 })
    // Repeating it is harmless.
    await expect(deleteProjectUploads(server.ctx, account.project.id)).resolves.toEqual({ deleted: 0 })
  })
})

describe('uploads are scoped to their project', () => {
  it('another project’s key neither lists nor deletes them, and the file stays served', async () => {
    const account = await createAccount(server)
    const other = await createAccount(server)
    const made = await upload(account, await png())

    expect((await list(other)).json()).toEqual({ data: [], cursor: '', hasMore: false, total: 0 })
    const deleted = await server.app.inject({
      method: 'DELETE',
      url: `/uploads/${made.id}`,
      headers: bearer(other.secretKey),
    })
    expect(deleted.statusCode).toBe(404)
    expect(deleted.json()).toEqual(notFoundBody('Upload'))
    expect((await fetchUpload(made.url)).status).toBe(200)
    expect((await list(account)).json()).toMatchObject({ data: [made], total: 1 })
  })

  it('a session user who is not a member of the project reaches none of them', async () => {
    const account = await createAccount(server)
    const outsider = await createAccount(server)
    const made = await upload(account, await png())
    for (const [method, url] of [
      ['GET', '/uploads'],
      ['DELETE', `/uploads/${made.id}`],
    ] as const) {
      const response = await server.app.inject({
        method,
        url,
        headers: { cookie: outsider.cookie, 'x-project-id': account.project.id },
      })
      expect(response.statusCode, `${method} ${url}`).toBe(404)
      expect(response.json().error.code).toBe('NOT_FOUND')
    }
    expect((await list(account)).json()).toMatchObject({ total: 1 })
  })

  it('without a key or with the public key: 401 on upload, list and delete', async () => {
    const account = await createAccount(server)
    const made = await upload(account, await png())
    const { payload, contentType } = multipart([
      { name: 'image', filename: 'a.png', contentType: 'image/png', body: await png() },
    ])
    await expectSecretKeyRequired(server, account, {
      method: 'POST',
      url: '/uploads/image',
      headers: { 'content-type': contentType },
      payload,
    })
    await expectSecretKeyRequired(server, account, { method: 'GET', url: '/uploads' })
    await expectSecretKeyRequired(server, account, { method: 'DELETE', url: `/uploads/${made.id}` })
    expect((await list(account)).json()).toMatchObject({ data: [made], total: 1 })
  })

  it('a malformed upload id is refused with 422', async () => {
    const account = await createAccount(server)
    const response = await server.app.inject({
      method: 'DELETE',
      url: '/uploads/nope',
      headers: bearer(account.secretKey),
    })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(
      errorBody('VALIDATION_ERROR', 422, { errors: [expect.objectContaining({ field: 'id' })] }),
    )
  })
})

describe('GET /config', () => {
  it('says S3 storage is off when S3_BUCKET is not set', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/config' })
    expect(response.json()).toMatchObject({ storage: { s3: false } })
  })
})
