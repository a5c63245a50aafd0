import type { FastifyRequest } from 'fastify'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { requireBodyFields } from '../../http/required-fields.js'
import { listSegmentContacts } from './contacts.js'
import { addMembers, removeMembers } from './members.js'
import { computeSegment } from './membership.js'
import { previewSegment } from './preview.js'
import {
  computeResult,
  membersAdd,
  membersAdded,
  membersRemove,
  membersRemoved,
  refreshResult,
  segmentContactsPage,
  segmentContactsQuery,
  segmentCreate,
  segmentIdParams,
  segmentList,
  segmentPreview,
  segmentPreviewBody,
  segmentUpdate,
  segmentView,
} from './schemas.js'
import {
  createSegment,
  deleteSegment,
  findSegment,
  listSegments,
  refreshSegmentCount,
  updateSegment,
} from './service.js'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Plunk's legacy 400 `{error}` for a dynamic segment created without an object condition, checked before the schema.
 * The spec allows that body on segment create only: every other route answers bad input with the standard body.
 */
async function requireCondition(request: FastifyRequest): Promise<void> {
  if (!isObject(request.body)) return
  const { type, condition } = request.body
  if (type === 'STATIC' || isObject(condition)) return
  throw new AppError('BAD_REQUEST', 'Condition is required and must be an object for DYNAMIC segments', { plain: true })
}

export function registerSegmentRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['segments']
  const params = segmentIdParams

  app.get('/segments', { config, schema: { tags, response: { 200: segmentList } } }, async (request) =>
    listSegments(ctx.db, projectOf(request)),
  )

  app.post(
    '/segments',
    {
      config,
      preValidation: [requireBodyFields(['name']), requireCondition],
      schema: { tags, body: segmentCreate, response: { 201: segmentView } },
    },
    async (request, reply) => reply.code(201).send(await createSegment(ctx.db, projectOf(request), request.body)),
  )

  // For the dashboard's editor: the live count and first contacts of a condition before it is saved.
  app.post(
    '/segments/preview',
    { config, schema: { tags, body: segmentPreviewBody, response: { 200: segmentPreview } } },
    async (request) => previewSegment(ctx.db, projectOf(request), request.body),
  )

  app.get('/segments/:id', { config, schema: { tags, params, response: { 200: segmentView } } }, async (request) =>
    findSegment(ctx.db, projectOf(request), request.params.id),
  )

  app.patch(
    '/segments/:id',
    { config, schema: { tags, params, body: segmentUpdate, response: { 200: segmentView } } },
    async (request) => updateSegment(ctx.db, projectOf(request), request.params.id, request.body),
  )

  app.delete('/segments/:id', { config, schema: { tags, params } }, async (request, reply) => {
    await deleteSegment(ctx.db, projectOf(request), request.params.id)
    return reply.code(204).send()
  })

  app.get(
    '/segments/:id/contacts',
    { config, schema: { tags, params, querystring: segmentContactsQuery, response: { 200: segmentContactsPage } } },
    async (request) => listSegmentContacts(ctx.db, projectOf(request), request.params.id, request.query),
  )

  app.post(
    '/segments/:id/members',
    {
      config,
      schema: { tags, params, body: membersAdd, response: { 200: membersAdded } },
    },
    async (request) => addMembers(ctx, projectOf(request), request.params.id, request.body),
  )

  app.delete(
    '/segments/:id/members',
    {
      config,
      schema: { tags, params, body: membersRemove, response: { 200: membersRemoved } },
    },
    async (request) => removeMembers(ctx, projectOf(request), request.params.id, request.body.emails),
  )

  app.post(
    '/segments/:id/compute',
    { config, schema: { tags, params, response: { 200: computeResult } } },
    async (request) => computeSegment(ctx.db, projectOf(request), request.params.id),
  )

  app.post(
    '/segments/:id/refresh',
    { config, schema: { tags, params, response: { 200: refreshResult } } },
    async (request) => refreshSegmentCount(ctx.db, projectOf(request), request.params.id),
  )
}
