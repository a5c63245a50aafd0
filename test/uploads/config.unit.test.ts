import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'

const base = { SECRET: 'a-secret-of-at-least-thirty-two-characters', DATA_DIR: '/tmp/mailroom-config-test' }

const s3 = {
  S3_BUCKET: 'mailroom-uploads',
  S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  S3_ACCESS_KEY_SECRET: 'secret',
  S3_PUBLIC_URL: 'https://cdn.example.com/uploads/',
}

describe('upload configuration', () => {
  it('keeps uploads on local disk, at most 10 MB and 50 megapixels, by default', () => {
    const config = loadConfig(base)
    expect(config.s3).toBeUndefined()
    expect(config.uploads).toEqual({ maxBytes: 10 * 1024 * 1024, maxPixels: 50_000_000 })
    expect(loadConfig({ ...base, UPLOAD_MAX_BYTES: '2000000', UPLOAD_MAX_PIXELS: '1000' }).uploads).toEqual({
      maxBytes: 2_000_000,
      maxPixels: 1000,
    })
  })

  it('turns S3 on with S3_BUCKET, with AWS defaults for what is not set', () => {
    expect(loadConfig({ ...base, ...s3 }).s3).toEqual({
      bucket: 'mailroom-uploads',
      endpoint: undefined,
      region: 'us-east-1',
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'secret',
      publicUrl: 'https://cdn.example.com/uploads',
      forcePathStyle: false,
      prefix: undefined,
    })
    const compatible = loadConfig({
      ...base,
      ...s3,
      S3_ENDPOINT: 'http://minio.internal:9000',
      S3_REGION: 'eu-central-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: 'mail/images',
    }).s3
    expect(compatible).toMatchObject({
      endpoint: 'http://minio.internal:9000',
      region: 'eu-central-1',
      forcePathStyle: true,
      prefix: 'mail/images',
    })
  })

  it('names each S3 variable missing once S3_BUCKET is set', () => {
    expect(() => loadConfig({ ...base, S3_BUCKET: 'b' })).toThrow(
      new ConfigError([
        'S3_ACCESS_KEY_ID: required when S3_BUCKET is set',
        'S3_ACCESS_KEY_SECRET: required when S3_BUCKET is set',
        'S3_PUBLIC_URL: required when S3_BUCKET is set',
      ]),
    )
  })

  it('refuses a bad endpoint, public URL, prefix or limit', () => {
    for (const bad of [
      { S3_ENDPOINT: 'ftp://x' },
      { S3_PUBLIC_URL: 'not a url' },
      { S3_PREFIX: '../escape' },
      { S3_PREFIX: 'a//b' },
      { UPLOAD_MAX_BYTES: '0' },
      { UPLOAD_MAX_PIXELS: '-1' },
    ]) {
      expect(() => loadConfig({ ...base, ...s3, ...bad }), JSON.stringify(bad)).toThrow(ConfigError)
    }
  })
})
