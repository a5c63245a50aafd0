import { existsSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { S3Config } from '../../src/config.js'
import { deleteProjectUploads } from '../../src/modules/uploads/service.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { type S3TestServer, startS3TestServer } from '../helpers/s3-server.js'
import { notFoundBody } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { errorBody, expectNothingStored, jpegWithExif, png, postImage } from './upload-helpers.js'

const credentials = {
  accessKeyId: 'AKIAMAILROOMTEST',
  secretAccessKey: 'mailroom-test-secret-key',
  region: 'eu-west-1',
}

let s3: S3TestServer
let server: TestServer

function s3Config(overrides: Partial<S3Config> = {}): S3Config {
  return {
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: credentials.region,
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    publicUrl: s3.publicUrl,
    forcePathStyle: true,
    prefix: 'mailroom',
    ...overrides,
  }
}

beforeAll(async () => {
  s3 = await startS3TestServer(credentials)
  server = await startTestServer({ worker: false, config: { s3: s3Config() } })
})
afterAll(async () => {
  await server.close()
  await s3.close()
})
afterEach(() => {
  s3.failWith(undefined)
})

type UploadJson = { id: string; url: string; key: string; contentType: string; size: number }

async function upload(account: Account): Promise<UploadJson> {
  const response = await postImage(server, account, await png())
  expect(response.statusCode, response.body).toBe(200)
  return response.json<UploadJson>()
}

const remove = (account: Account, id: string) =>
  server.app.inject({ method: 'DELETE', url: `/uploads/${id}`, headers: bearer(account.secretKey) })

const storageUnavailable = errorBody('SERVICE_UNAVAILABLE', 503)

describe('uploads in S3-compatible storage (S3_BUCKET set)', () => {
  it('GET /config says S3 storage is on', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/config' })
    expect(response.json()).toMatchObject({ storage: { s3: true } })
  })

  it('puts the cleaned image with a signed PutObject and answers with its public S3 URL', async () => {
    const account = await createAccount(server)
    const before = s3.requests.length
    const response = await postImage(server, account, await jpegWithExif(40, 30), 'photo.jpg', 'image/jpeg')
    expect(response.statusCode).toBe(200)
    const body = response.json<UploadJson>()
    expect(body.key).toMatch(new RegExp(`^mailroom/${account.project.id}/\\d{13}-[0-9a-f]{16}\\.jpg$`))
    expect(body.url).toBe(`${s3.publicUrl}/${body.key}`)

    const puts = s3.requests.slice(before)
    expect(puts).toEqual([
      {
        method: 'PUT',
        key: body.key,
        authenticated: true,
        signedHeaders: expect.arrayContaining(['host', 'x-amz-date']),
      },
    ])
    const stored = s3.objects.get(body.key)
    expect(stored).toMatchObject({ contentType: 'image/jpeg', cacheControl: 'public, max-age=31536000, immutable' })
    expect(stored?.body.length).toBe(body.size)

    const served = await fetch(body.url)
    expect(served.status).toBe(200)
    const bytes = Buffer.from(await served.arrayBuffer())
    const metadata = await sharp(bytes).metadata()
    expect(metadata).toMatchObject({ format: 'jpeg', width: 40, height: 30 })
    expect(metadata.exif).toBeUndefined()
    expect(bytes.includes('exif-owner-secret')).toBe(false)
    // Nothing went to the local uploads folder.
    expect(existsSync(path.join(server.config.dataDir, 'uploads', account.project.id))).toBe(false)
  })

  it('deletes with a signed DeleteObject: the URL then answers 404', async () => {
    const account = await createAccount(server)
    const made = await upload(account)
    const response = await remove(account, made.id)
    expect(response.statusCode).toBe(204)
    expect(s3.requests.at(-1)).toMatchObject({ method: 'DELETE', key: made.key, authenticated: true })
    expect(s3.objects.has(made.key)).toBe(false)
    expect((await fetch(made.url)).status).toBe(404)
    await expectNothingStored(server, account)
  })

  it('another project’s key cannot delete the object', async () => {
    const account = await createAccount(server)
    const other = await createAccount(server)
    const made = await upload(account)
    const response = await remove(other, made.id)
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(notFoundBody('Upload'))
    expect(s3.objects.has(made.key)).toBe(true)
  })

  it('storage down: the upload answers 503 and nothing is recorded', async () => {
    const account = await createAccount(server)
    s3.failWith(500)
    const response = await postImage(server, account, await png())
    expect(response.statusCode).toBe(503)
    expect(response.json()).toEqual(storageUnavailable)
    await expectNothingStored(server, account)
  })

  it('storage down: a delete answers 503 and keeps the upload, and succeeds once storage is back', async () => {
    const account = await createAccount(server)
    const made = await upload(account)
    s3.failWith(500)
    const failed = await remove(account, made.id)
    expect(failed.statusCode).toBe(503)
    expect(failed.json()).toEqual(storageUnavailable)
    s3.failWith(undefined)
    const list = await server.app.inject({ method: 'GET', url: '/uploads', headers: bearer(account.secretKey) })
    expect(list.json()).toMatchObject({ total: 1, data: [{ id: made.id }] })
    expect(s3.objects.has(made.key)).toBe(true)

    expect((await remove(account, made.id)).statusCode).toBe(204)
    expect(s3.objects.has(made.key)).toBe(false)
  })

  it('deleteProjectUploads removes the project’s objects and rows, and no other project’s', async () => {
    const account = await createAccount(server)
    const other = await createAccount(server)
    const mine = [await upload(account), await upload(account), await upload(account)]
    const theirs = await upload(other)

    await expect(deleteProjectUploads(server.ctx, account.project.id)).resolves.toEqual({ deleted: 3 })
    for (const made of mine) expect(s3.objects.has(made.key)).toBe(false)
    expect(s3.objects.has(theirs.key)).toBe(true)
    await expectNothingStored(server, account)
  })
})

describe('S3 with the wrong secret', () => {
  it('the storage refuses the signature: 503, nothing recorded, nothing stored', async () => {
    const wrong = await startTestServer({
      worker: false,
      config: { s3: s3Config({ secretAccessKey: 'not-the-secret' }) },
    })
    try {
      const account = await createAccount(wrong)
      const objects = s3.objects.size
      const before = s3.requests.length
      const response = await postImage(wrong, account, await png())
      expect(response.statusCode).toBe(503)
      expect(response.json()).toEqual(storageUnavailable)
      expect(s3.requests.slice(before)).toEqual([expect.objectContaining({ method: 'PUT', authenticated: false })])
      expect(s3.objects.size).toBe(objects)
      await expectNothingStored(wrong, account)
    } finally {
      await wrong.close()
    }
  })
})
