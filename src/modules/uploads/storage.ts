import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Config } from '../../config.js'
import type { ObjectStore } from './object-store.js'
import { createS3Store } from './s3-store.js'

/** What the server's public file route serves: `<projectId>/<timestamp>-<16 hex>.<ext>`. */
export const localKeyPattern =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/\d{13}-[0-9a-f]{16}\.(jpg|png|gif|webp)$/

export const localFilesRoute = '/uploads/files'

export function localUploadsDir(config: Config): string {
  return path.join(config.dataDir, 'uploads')
}

function createLocalStore(config: Config): ObjectStore {
  const root = localUploadsDir(config)
  const fileOf = (key: string) => {
    // Keys come from our own rows; the check keeps a bad one from naming a file outside the uploads folder.
    if (!localKeyPattern.test(key)) throw new Error(`not a local upload key: ${key}`)
    return path.join(root, key)
  }
  return {
    kind: 'local',
    async put(key, bytes) {
      const file = fileOf(key)
      await mkdir(path.dirname(file), { recursive: true })
      await writeFile(file, bytes, { flag: 'wx' })
    },
    async remove(keys) {
      await Promise.all(keys.map((key) => rm(fileOf(key), { force: true })))
    },
    urlOf: (key) => `${config.publicUrl}${localFilesRoute}/${key}`,
    close: async () => {},
  }
}

export type UploadStores = {
  /** Where new uploads go: S3 when configured, else the local folder. */
  current: ObjectStore
  local: ObjectStore
  s3: ObjectStore | undefined
}

// One set per configuration, so the routes and `deleteProjectUploads` share the S3 client and its connections.
const storesByConfig = new WeakMap<Config, UploadStores>()

export function uploadStores(config: Config): UploadStores {
  let stores = storesByConfig.get(config)
  if (!stores) {
    const local = createLocalStore(config)
    const s3 = config.s3 ? createS3Store(config.s3) : undefined
    stores = { current: s3 ?? local, local, s3 }
    storesByConfig.set(config, stores)
  }
  return stores
}

/** Releases the S3 client's connections (at server close). */
export async function closeUploadStores(config: Config): Promise<void> {
  const stores = storesByConfig.get(config)
  storesByConfig.delete(config)
  await stores?.s3?.close()
}
