import type { S3Client } from '@aws-sdk/client-s3'
import type { S3Config } from '../../config.js'
import type { ObjectStore } from './object-store.js'

// Loaded on first use: the AWS SDK costs memory that a deployment storing uploads locally should not pay.
const loadSdk = () => import('@aws-sdk/client-s3')

/** Deletes in flight at once when a project's uploads are removed. */
const deleteConcurrency = 8

/** Object names never change (a new upload gets a new key), so caches may keep them for a year. */
export const immutableCacheControl = 'public, max-age=31536000, immutable'

export function createS3Store(config: S3Config): ObjectStore {
  let client: Promise<S3Client> | undefined
  const clientOf = () =>
    (client ??= loadSdk().then(
      (sdk) =>
        new sdk.S3Client({
          region: config.region,
          ...(config.endpoint ? { endpoint: config.endpoint } : {}),
          forcePathStyle: config.forcePathStyle,
          credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
          // Checksums only where S3 requires them: several S3-compatible services refuse the SDK's default
          // CRC32 headers, and the payload is already covered by the signed SHA-256.
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
          requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
        }),
    ))
  return {
    kind: 's3',
    async put(key, bytes, contentType) {
      const { PutObjectCommand } = await loadSdk()
      await (await clientOf()).send(
        new PutObjectCommand({
          Bucket: config.bucket,
          Key: key,
          Body: bytes,
          ContentType: contentType,
          ContentLength: bytes.byteLength,
          CacheControl: immutableCacheControl,
        }),
      )
    },
    async remove(keys) {
      if (keys.length === 0) return
      const { DeleteObjectCommand } = await loadSdk()
      const s3 = await clientOf()
      // One DeleteObject per key rather than DeleteObjects: the batch call needs a Content-MD5 or checksum
      // header that not every S3-compatible service accepts.
      const pending = [...keys]
      const worker = async () => {
        for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
          await s3.send(new DeleteObjectCommand({ Bucket: config.bucket, Key: key }))
        }
      }
      await Promise.all(Array.from({ length: Math.min(deleteConcurrency, keys.length) }, worker))
    },
    urlOf: (key) => `${config.publicUrl}/${key.split('/').map(encodeURIComponent).join('/')}`,
    async close() {
      if (client) (await client).destroy()
    },
  }
}
