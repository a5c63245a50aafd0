import type { AppContext } from '../../../context.js'
import type { App } from '../../../http/app-type.js'
import { projectOf } from '../../../http/project.js'
import { requireBodyFields } from '../../../http/required-fields.js'
import { cancelAllExecutions, cancelExecution } from './cancel.js'
import { getExecution, listExecutions } from './queries.js'
import {
  cancelAllResult,
  executionDetail,
  executionListQuery,
  executionPage,
  executionParams,
  executionStart,
  executionView,
  workflowParams,
} from './schemas.js'
import { startManualExecution } from './start.js'

/** The executions routes of the Workflows table. */
export function registerWorkflowExecutionRoutes(app: App, ctx: AppContext): void {
  const config = { auth: 'project' as const, role: 'MEMBER' as const }
  const tags = ['workflows']

  app.post(
    '/workflows/:id/executions',
    {
      config,
      preValidation: requireBodyFields(['contactId']),
      schema: { tags, params: workflowParams, body: executionStart, response: { 201: executionView } },
    },
    async (request, reply) =>
      reply.code(201).send(await startManualExecution(ctx.db, projectOf(request), request.params.id, request.body)),
  )

  app.get(
    '/workflows/:id/executions',
    {
      config,
      schema: { tags, params: workflowParams, querystring: executionListQuery, response: { 200: executionPage } },
    },
    async (request) => listExecutions(ctx.db, projectOf(request), request.params.id, request.query),
  )

  app.post(
    '/workflows/:id/executions/cancel-all',
    { config, schema: { tags, params: workflowParams, response: { 200: cancelAllResult } } },
    async (request) => cancelAllExecutions(ctx.db, projectOf(request), request.params.id),
  )

  app.get(
    '/workflows/:id/executions/:executionId',
    { config, schema: { tags, params: executionParams, response: { 200: executionDetail } } },
    async (request) => getExecution(ctx.db, projectOf(request), request.params.id, request.params.executionId),
  )

  app.delete(
    '/workflows/:id/executions/:executionId',
    { config, schema: { tags, params: executionParams, response: { 200: executionDetail } } },
    async (request) => {
      const { id, executionId } = request.params
      await cancelExecution(ctx.db, projectOf(request), id, executionId)
      return getExecution(ctx.db, projectOf(request), id, executionId)
    },
  )
}
