import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { requireBodyFields } from '../../http/required-fields.js'
import { previewTemplate } from './preview.js'
import {
  requiredTemplateFields,
  templateCreate,
  templateIdParams,
  templateListQuery,
  templatePage,
  templatePreview,
  templatePreviewBody,
  templateUpdate,
  templateUsage,
  templateView,
} from './schemas.js'
import {
  createTemplate,
  deleteTemplate,
  duplicateTemplate,
  getTemplate,
  getTemplateUsage,
  listTemplates,
  updateTemplate,
} from './service.js'

export function registerTemplateRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'project' as const, role: 'MEMBER' as const } }
  // Templates are shared by every sender of the project, so only admins change them.
  const admin = { config: { auth: 'project' as const, role: 'ADMIN' as const } }
  const tags = ['templates']

  app.get(
    '/templates',
    { ...route, schema: { tags, querystring: templateListQuery, response: { 200: templatePage } } },
    async (request) => listTemplates(ctx.db, projectOf(request), request.query),
  )

  app.post(
    '/templates',
    {
      ...admin,
      preValidation: requireBodyFields(requiredTemplateFields),
      schema: { tags, body: templateCreate, response: { 201: templateView } },
    },
    async (request, reply) =>
      reply.code(201).send(await createTemplate(ctx.db, ctx.config, projectOf(request), request.body)),
  )

  // Renders a draft without saving it: the editor's live preview, text alternative and syntax check.
  app.post(
    '/templates/preview',
    { ...route, schema: { tags, body: templatePreviewBody, response: { 200: templatePreview } } },
    async (request) => previewTemplate(ctx.db, projectOf(request), request.body),
  )

  app.get(
    '/templates/:id',
    { ...route, schema: { tags, params: templateIdParams, response: { 200: templateView } } },
    async (request) => getTemplate(ctx.db, projectOf(request), request.params.id),
  )

  app.patch(
    '/templates/:id',
    { ...admin, schema: { tags, params: templateIdParams, body: templateUpdate, response: { 200: templateView } } },
    async (request) => updateTemplate(ctx.db, ctx.config, projectOf(request), request.params.id, request.body),
  )

  app.delete('/templates/:id', { ...admin, schema: { tags, params: templateIdParams } }, async (request, reply) => {
    await deleteTemplate(ctx.db, projectOf(request), request.params.id)
    return reply.code(204).send()
  })

  app.post(
    '/templates/:id/duplicate',
    { ...admin, schema: { tags, params: templateIdParams, response: { 201: templateView } } },
    async (request, reply) =>
      reply.code(201).send(await duplicateTemplate(ctx.db, projectOf(request), request.params.id)),
  )

  app.get(
    '/templates/:id/usage',
    { ...route, schema: { tags, params: templateIdParams, response: { 200: templateUsage } } },
    async (request) => getTemplateUsage(ctx.db, projectOf(request), request.params.id),
  )
}
