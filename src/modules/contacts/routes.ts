import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { contactEventsParams, eventListQuery, eventPage } from '../event-log/schemas.js'
import { getBulkJob, startBulkJob } from './bulk.js'
import { listContactEvents } from './events.js'
import { deleteContactField, findFieldUsage, listContactFields, listFieldValues } from './fields.js'
import { getContactImport, importMaxBytes, startContactImport } from './import.js'
import { listContacts } from './list.js'
import {
  type BulkAction,
  bulkBody,
  bulkView,
  contactCreate,
  contactCreated,
  contactIdParams,
  contactListQuery,
  contactPage,
  contactUpdate,
  contactView,
  fieldList,
  fieldParams,
  fieldValues,
  fieldValuesQuery,
  importView,
  jobAccepted,
  jobIdParams,
  lookupBody,
  lookupResult,
  usageView,
} from './schemas.js'
import {
  createContact,
  deleteContact,
  getContact,
  lookupContacts,
  type SegmentReevaluation,
  updateContact,
} from './service.js'

export function registerContactRoutes(app: App, ctx: AppContext, reevaluate: SegmentReevaluation): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['contacts']

  app.get(
    '/contacts',
    { config, schema: { tags, querystring: contactListQuery, response: { 200: contactPage } } },
    async (request) => listContacts(ctx.db, projectOf(request), request.query),
  )

  app.post(
    '/contacts',
    { config, schema: { tags, body: contactCreate, response: { 200: contactCreated, 201: contactCreated } } },
    async (request, reply) => {
      const result = await createContact(ctx.db, reevaluate, projectOf(request), request.body)
      // A new contact or a subscription change published an event.
      wakeEventDispatcher(ctx.pool)
      return reply
        .code(result.isNew ? 201 : 200)
        .send({ ...result.contact, _meta: { isNew: result.isNew, isUpdate: !result.isNew } })
    },
  )

  app.post(
    '/contacts/lookup',
    { config, schema: { tags, body: lookupBody, response: { 200: lookupResult } } },
    async (request) => lookupContacts(ctx.db, projectOf(request), request.body.emails),
  )

  app.get('/contacts/fields', { config, schema: { tags, response: { 200: fieldList } } }, async (request) =>
    listContactFields(ctx.db, projectOf(request)),
  )

  app.get(
    '/contacts/fields/:field/values',
    { config, schema: { tags, params: fieldParams, querystring: fieldValuesQuery, response: { 200: fieldValues } } },
    async (request) => listFieldValues(ctx.db, projectOf(request), request.params.field, request.query.limit),
  )

  app.get(
    '/contacts/fields/:field/usage',
    { config, schema: { tags, params: fieldParams, response: { 200: usageView } } },
    async (request) => findFieldUsage(ctx.db, projectOf(request), request.params.field),
  )

  // Removes a field from every contact of the project at once.
  app.delete(
    '/contacts/fields/:field',
    { config: { ...config, role: 'ADMIN' }, schema: { tags, params: fieldParams } },
    async (request) => deleteContactField(ctx.db, projectOf(request), request.params.field),
  )

  app.post('/contacts/import', { config, schema: { tags, response: { 202: jobAccepted } } }, async (request, reply) => {
    if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Upload the CSV as multipart/form-data')
    const upload = await request.file({ limits: { fileSize: importMaxBytes, files: 1 } })
    if (!upload)
      throw new AppError('VALIDATION_ERROR', 'A CSV file is required', {
        errors: [{ field: 'file', code: 'invalid_type', message: 'Required' }],
      })
    const file = await upload.toBuffer()
    // toBuffer() can miss a limit reached on the last chunk; the stream's flag cannot.
    if (upload.file.truncated) throw new AppError('PAYLOAD_TOO_LARGE', 'The CSV file is larger than 5 MB')
    return reply.code(202).send(await startContactImport(ctx, projectOf(request), file))
  })

  app.get(
    '/contacts/import/:jobId',
    { config, schema: { tags, params: jobIdParams, response: { 200: importView } } },
    async (request) => getContactImport(ctx.db, projectOf(request), request.params.jobId),
  )

  const bulkRoutes: [string, BulkAction][] = [
    ['/contacts/bulk-subscribe', 'subscribe'],
    ['/contacts/bulk-unsubscribe', 'unsubscribe'],
    ['/contacts/bulk-delete', 'delete'],
  ]
  for (const [url, action] of bulkRoutes) {
    app.post(
      url,
      { config, schema: { tags, body: bulkBody, response: { 202: jobAccepted } } },
      async (request, reply) =>
        reply.code(202).send(await startBulkJob(ctx, projectOf(request), action, request.body.contactIds)),
    )
  }

  app.get(
    '/contacts/bulk/:jobId',
    { config, schema: { tags, params: jobIdParams, response: { 200: bulkView } } },
    async (request) => getBulkJob(ctx.db, projectOf(request), request.params.jobId),
  )

  app.get(
    '/contacts/:id',
    { config, schema: { tags, params: contactIdParams, response: { 200: contactView } } },
    async (request) => getContact(ctx.db, projectOf(request), request.params.id),
  )

  app.patch(
    '/contacts/:id',
    { config, schema: { tags, params: contactIdParams, body: contactUpdate, response: { 200: contactView } } },
    async (request) => {
      const contact = await updateContact(ctx.db, reevaluate, projectOf(request), request.params.id, request.body)
      // A subscription change published an event.
      wakeEventDispatcher(ctx.pool)
      return contact
    },
  )

  app.delete('/contacts/:id', { config, schema: { tags, params: contactIdParams } }, async (request, reply) => {
    await deleteContact(ctx.db, projectOf(request), request.params.id)
    return reply.code(204).send()
  })

  // A contact's events: under /events, as Plunk has it; here because the contact must be the project's.
  app.get(
    '/events/contact/:contactId',
    {
      config,
      schema: {
        tags: ['events'],
        params: contactEventsParams,
        querystring: eventListQuery,
        response: { 200: eventPage },
      },
    },
    async (request) => listContactEvents(ctx.db, projectOf(request), request.params.contactId, request.query),
  )
}
