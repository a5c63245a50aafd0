import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { lingerOnUnreadBody } from './linger.js'
import { readImageUpload } from './multipart.js'
import { immutableCacheControl } from './s3-store.js'
import { uploadFileParams, uploadIdParams, uploadListQuery, uploadPage, uploadView } from './schemas.js'
import { openLocalUpload } from './serve.js'
import { createUpload, deleteUpload, listUploads } from './service.js'
import { closeUploadStores, localFilesRoute } from './storage.js'

/** Images for template bodies: upload, list, delete, and the public URLs of those stored on this server. */
export function registerUploadRoutes(app: App, ctx: AppContext): void {
  // Members put images into the campaigns they build; deleting one may break a template or a sent email's
  // images, so it is an admin's (the role table in README).
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const adminConfig = { auth: 'project' as const, role: 'ADMIN' as const }
  const tags = ['uploads']
  app.addHook('onClose', async () => closeUploadStores(ctx.config))

  app.post(
    '/uploads/image',
    {
      config,
      schema: { tags, consumes: ['multipart/form-data'], response: { 200: uploadView } },
      onResponse: async (request) => lingerOnUnreadBody(request.raw),
    },
    async (request) => {
      const upload = await readImageUpload(request, ctx.config.uploads.maxBytes)
      return createUpload(ctx, projectOf(request), upload)
    },
  )

  app.get(
    '/uploads',
    { config, schema: { tags, querystring: uploadListQuery, response: { 200: uploadPage } } },
    async (request) => listUploads(ctx.db, projectOf(request), request.query),
  )

  app.delete(
    '/uploads/:id',
    { config: adminConfig, schema: { tags, params: uploadIdParams } },
    async (request, reply) => {
      await deleteUpload(ctx, projectOf(request), request.params.id)
      return reply.code(204).send()
    },
  )

  // Public, as images in sent mail must be: the key's random part is what keeps an upload unlisted.
  app.get(
    `${localFilesRoute}/:projectId/:name`,
    { config: { auth: 'none' }, schema: { tags, params: uploadFileParams } },
    async (request, reply) => {
      const file = await openLocalUpload(ctx.config, request.params.projectId, request.params.name)
      return (
        reply
          .type(file.contentType)
          .header('content-length', file.size)
          .header('cache-control', immutableCacheControl)
          .header('x-content-type-options', 'nosniff')
          // Should a browser ever open one as a document, it runs nothing and loads nothing.
          .header('content-security-policy', "default-src 'none'; sandbox")
          .send(file.stream)
      )
    },
  )
}
