import type { FastifyRequest } from 'fastify'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { listWorkflowFields } from './fields.js'
import { insertStepOnTransition } from './insert-step.js'
import {
  fieldsQuery,
  stepCreate,
  stepDeleteQuery,
  stepIdParams,
  stepInsert,
  stepUpdate,
  stepView,
  transitionCreate,
  transitionIdParams,
  transitionView,
  workflowCreate,
  workflowDetail,
  workflowFields,
  workflowIdParams,
  workflowListQuery,
  workflowPage,
  workflowUpdate,
  workflowUpdated,
  workflowView,
} from './schemas.js'
import {
  createWorkflow,
  deleteWorkflow,
  duplicateWorkflow,
  getWorkflow,
  listWorkflows,
  updateWorkflow,
} from './service.js'
import { addStep, deleteStep, updateStep } from './step-edits.js'
import { createTransition, deleteTransition } from './transitions.js'

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

/**
 * Plunk's 400 and message for a missing required field, in the standard error body (DESIGN §4), checked before
 * the schema; a body that is not an object, and every other problem, stay 422s.
 */
function requireFields(fields: readonly string[], message: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const body = request.body ?? {}
    if (typeof body !== 'object' || Array.isArray(body)) return
    const given = body as Record<string, unknown>
    if (fields.some((field) => isBlank(given[field]))) throw new AppError('BAD_REQUEST', message)
  }
}

/** The workflow definition API (plunk-compat §4): workflows, steps, transitions, and the fields a CONDITION reads. */
export function registerWorkflowRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['workflows']

  app.get(
    '/workflows',
    { config, schema: { tags, querystring: workflowListQuery, response: { 200: workflowPage } } },
    async (request) => listWorkflows(ctx.db, projectOf(request), request.query),
  )

  app.get(
    '/workflows/fields',
    { config, schema: { tags, querystring: fieldsQuery, response: { 200: workflowFields } } },
    async (request) => listWorkflowFields(ctx.db, projectOf(request), request.query.eventName),
  )

  app.post(
    '/workflows',
    {
      config,
      preValidation: [
        requireFields(['name'], 'Name is required'),
        requireFields(['eventName'], 'Event name is required'),
      ],
      schema: { tags, body: workflowCreate, response: { 201: workflowView } },
    },
    async (request, reply) => reply.code(201).send(await createWorkflow(ctx.db, projectOf(request), request.body)),
  )

  app.get(
    '/workflows/:id',
    { config, schema: { tags, params: workflowIdParams, response: { 200: workflowDetail } } },
    async (request) => getWorkflow(ctx.db, projectOf(request), request.params.id),
  )

  app.patch(
    '/workflows/:id',
    { config, schema: { tags, params: workflowIdParams, body: workflowUpdate, response: { 200: workflowUpdated } } },
    async (request) => updateWorkflow(ctx.db, projectOf(request), request.params.id, request.body),
  )

  app.delete('/workflows/:id', { config, schema: { tags, params: workflowIdParams } }, async (request, reply) => {
    await deleteWorkflow(ctx.db, projectOf(request), request.params.id)
    return reply.code(204).send()
  })

  app.post(
    '/workflows/:id/duplicate',
    { config, schema: { tags, params: workflowIdParams, response: { 201: workflowView } } },
    async (request, reply) =>
      reply.code(201).send(await duplicateWorkflow(ctx.db, projectOf(request), request.params.id)),
  )

  app.post(
    '/workflows/:id/steps',
    {
      config,
      preValidation: requireFields(
        ['type', 'name', 'position', 'config'],
        'Type, name, position, and config are required',
      ),
      schema: { tags, params: workflowIdParams, body: stepCreate, response: { 201: stepView } },
    },
    async (request, reply) =>
      reply.code(201).send(await addStep(ctx.db, projectOf(request), request.params.id, request.body)),
  )

  app.patch(
    '/workflows/:id/steps/:stepId',
    { config, schema: { tags, params: stepIdParams, body: stepUpdate, response: { 200: stepView } } },
    async (request) => updateStep(ctx.db, projectOf(request), request.params.id, request.params.stepId, request.body),
  )

  app.delete(
    '/workflows/:id/steps/:stepId',
    { config, schema: { tags, params: stepIdParams, querystring: stepDeleteQuery } },
    async (request, reply) => {
      const { id, stepId } = request.params
      await deleteStep(ctx.db, projectOf(request), id, stepId, { splice: request.query.splice })
      return reply.code(204).send()
    },
  )

  app.post(
    '/workflows/:id/transitions',
    {
      config,
      preValidation: requireFields(['fromStepId', 'toStepId'], 'From step ID and to step ID are required'),
      schema: { tags, params: workflowIdParams, body: transitionCreate, response: { 201: transitionView } },
    },
    async (request, reply) =>
      reply.code(201).send(await createTransition(ctx.db, projectOf(request), request.params.id, request.body)),
  )

  app.post(
    '/workflows/:id/transitions/:transitionId/insert-step',
    {
      config,
      preValidation: requireFields(['type', 'name', 'config'], 'Type, name, and config are required'),
      schema: { tags, params: transitionIdParams, body: stepInsert, response: { 201: stepView } },
    },
    async (request, reply) => {
      const { id, transitionId } = request.params
      return reply
        .code(201)
        .send(await insertStepOnTransition(ctx.db, projectOf(request), id, transitionId, request.body))
    },
  )

  app.delete(
    '/workflows/:id/transitions/:transitionId',
    { config, schema: { tags, params: transitionIdParams } },
    async (request, reply) => {
      await deleteTransition(ctx.db, projectOf(request), request.params.id, request.params.transitionId)
      return reply.code(204).send()
    },
  )
}
