import { randomBytes } from 'node:crypto'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { Executor } from '../../db/client.js'
import { decodeCursor, keysetPage, timestampText, timestampTextPattern, uuidPattern } from '../../db/keyset.js'
import { uploads } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { ImageUpload } from './multipart.js'
import type { ObjectStore } from './object-store.js'
import type { UploadListQuery, UploadPage, UploadView } from './schemas.js'
import { localUploadsDir, uploadStores } from './storage.js'

export type UploadDeps = { db: Executor; config: Config; log: Logger }

type UploadRow = typeof uploads.$inferSelect

function viewOf({ projectId, storage, ...row }: UploadRow): UploadView {
  return row
}

/** `[prefix/]<projectId>/<ms timestamp>-<16 hex>.<ext>`, Plunk's layout: unguessable, never reused. */
function newObjectKey(prefix: string | undefined, projectId: string, extension: string): string {
  const name = `${Date.now()}-${randomBytes(8).toString('hex')}.${extension}`
  return `${prefix ? `${prefix}/` : ''}${projectId}/${name}`
}

function storageFailed(log: Logger, err: unknown, action: string): AppError {
  log.error({ err }, `upload storage: ${action} failed`)
  return new AppError('SERVICE_UNAVAILABLE', `The image storage is unavailable: could not ${action} the image`)
}

/** Cleans the image, stores it, then records it; a failed record removes the stored object again. */
export async function createUpload(deps: UploadDeps, projectId: string, upload: ImageUpload): Promise<UploadView> {
  // sharp (libvips) loads with the first upload, not with every start.
  const { cleanImage } = await import('./image.js')
  const image = await cleanImage(upload.bytes, { maxPixels: deps.config.uploads.maxPixels })
  const store = uploadStores(deps.config).current
  const key = newObjectKey(store.kind === 's3' ? deps.config.s3?.prefix : undefined, projectId, image.extension)
  await store.put(key, image.bytes, image.contentType).catch((err: unknown) => {
    throw storageFailed(deps.log, err, 'store')
  })
  try {
    const [row] = await deps.db
      .insert(uploads)
      .values({
        projectId,
        key,
        storage: store.kind,
        url: store.urlOf(key),
        filename: upload.filename,
        contentType: image.contentType,
        size: image.bytes.byteLength,
        width: image.width,
        height: image.height,
      })
      .returning()
    if (!row) throw new Error('upload insert returned no row')
    return viewOf(row)
  } catch (err) {
    await store.remove([key]).catch((removeErr: unknown) => deps.log.error({ err: removeErr, key }, 'orphan upload'))
    throw err
  }
}

/** `(created_at, id)` before the cursor's, newest first; the timestamp travels as microsecond text. */
function afterCursor(cursor: string): SQL {
  const [at, id] = decodeCursor(cursor, 2) ?? []
  if (!at || !id || !timestampTextPattern.test(at) || !uuidPattern.test(id)) {
    throw new AppError('BAD_REQUEST', 'Invalid cursor')
  }
  return sql`(${uploads.createdAt}, ${uploads.id}) < (${at}::timestamptz, ${id}::uuid)`
}

/** The project's uploads, newest first; `total` only on the first page, as the spec's cursor lists. */
export async function listUploads(db: Executor, projectId: string, query: UploadListQuery): Promise<UploadPage> {
  const ofProject = eq(uploads.projectId, projectId)
  const rows = await db
    .select({ upload: uploads, sortValue: timestampText(sql`${uploads.createdAt}`).mapWith(String) })
    .from(uploads)
    .where(and(ofProject, query.cursor ? afterCursor(query.cursor) : undefined))
    .orderBy(desc(uploads.createdAt), desc(uploads.id))
    .limit(query.limit + 1)
  return keysetPage(rows, query, {
    view: ({ upload }) => viewOf(upload),
    cursorOf: (last) => [last.sortValue, last.upload.id],
    countTotal: async () => {
      const [counted] = await db.select({ total: count() }).from(uploads).where(ofProject)
      return counted?.total ?? 0
    },
  })
}

function storeFor(config: Config, kind: UploadRow['storage']): ObjectStore {
  const store = uploadStores(config)[kind]
  if (!store) {
    throw new AppError('SERVICE_UNAVAILABLE', 'The image is kept in S3, and S3 is no longer configured (S3_BUCKET)')
  }
  return store
}

/**
 * Deletes one upload: the row goes in a transaction that commits only once the object is gone, so a storage
 * failure leaves both in place (503) and the delete can be repeated.
 */
export async function deleteUpload(deps: UploadDeps, projectId: string, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(uploads)
      .where(and(eq(uploads.projectId, projectId), eq(uploads.id, id)))
      .returning({ key: uploads.key, storage: uploads.storage })
    if (!row) throw notFound('Upload')
    await storeFor(deps.config, row.storage)
      .remove([row.key])
      .catch((err: unknown) => {
        throw storageFailed(deps.log, err, 'delete')
      })
  })
}

/**
 * Deletes every upload of a project, files and rows, for project deletion. Call it before the project row goes
 * (the rows cascade with the project, their files would not). Within the caller's transaction the rows go with
 * it; the files are removed before it commits, so a rollback after this leaves rows whose URLs answer 404.
 * Repeating it is safe. Throws when storage fails, leaving the rows in place.
 */
export async function deleteProjectUploads(deps: UploadDeps, projectId: string): Promise<{ deleted: number }> {
  // The id becomes a folder name below; anything but a uuid could name another folder.
  if (!uuidPattern.test(projectId)) throw new Error(`not a project id: ${projectId}`)
  return deps.db.transaction(async (tx) => {
    const rows = await tx
      .delete(uploads)
      .where(eq(uploads.projectId, projectId))
      .returning({ key: uploads.key, storage: uploads.storage })
    const s3Keys = rows.filter((row) => row.storage === 's3').map((row) => row.key)
    const localKeys = rows.filter((row) => row.storage === 'local').map((row) => row.key)
    try {
      if (s3Keys.length > 0) await storeFor(deps.config, 's3').remove(s3Keys)
      await uploadStores(deps.config).local.remove(localKeys)
      // The project's folder goes too, with any file a crash left behind without its row.
      await rm(path.join(localUploadsDir(deps.config), projectId), { recursive: true, force: true })
    } catch (err) {
      if (err instanceof AppError) throw err
      throw storageFailed(deps.log, err, 'delete')
    }
    return { deleted: rows.length }
  })
}
