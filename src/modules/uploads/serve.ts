import type { ReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import path from 'node:path'
import type { Config } from '../../config.js'
import { notFound } from '../../errors.js'
import { contentTypeOfExtension } from './image-type.js'
import { localKeyPattern, localUploadsDir } from './storage.js'

export type StoredFile = { stream: ReadStream; size: number; contentType: string }

/** A locally stored upload by its key's two parts; anything that is not one of our keys is simply not found. */
export async function openLocalUpload(config: Config, projectId: string, name: string): Promise<StoredFile> {
  const key = `${projectId}/${name}`
  const contentType = contentTypeOfExtension(path.extname(name).slice(1))
  if (!localKeyPattern.test(key) || !contentType) throw notFound('Upload')
  const handle = await open(path.join(localUploadsDir(config), key), 'r').catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ENOENT' ? notFound('Upload') : err
  })
  try {
    const { size } = await handle.stat()
    return { stream: handle.createReadStream(), size, contentType }
  } catch (err) {
    await handle.close()
    throw err
  }
}
