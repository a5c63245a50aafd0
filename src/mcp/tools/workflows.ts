import { z } from 'zod'
import { executionStatuses } from '../../modules/workflows/executions/schemas.js'
import { defineTool, pageArgs, segment } from '../tool.js'

const workflowId = z.string().min(1).max(100).describe('The workflow id (from list_workflows)')

export const workflowTools = [
  defineTool({
    name: 'list_workflows',
    title: 'List workflows',
    description: 'Workflows with their trigger, whether they are enabled, and step counts; `search` matches the name.',
    kind: 'read',
    input: {
      search: z.string().max(200).optional(),
      status: z.enum(['active', 'disabled']).optional(),
      ...pageArgs,
    },
    run: (api, query) => api({ method: 'GET', path: '/workflows', query }),
  }),
  defineTool({
    name: 'get_workflow',
    title: 'Get a workflow',
    description: 'One workflow with its trigger, every step (type and configuration) and the transitions between them.',
    kind: 'read',
    input: { id: workflowId },
    run: (api, { id }) => api({ method: 'GET', path: `/workflows/${segment(id)}` }),
  }),
  defineTool({
    name: 'set_workflow_enabled',
    title: 'Enable or disable a workflow',
    description:
      'Enables a workflow (its trigger starts executions from now on) or disables it (no new executions; running ' +
      'ones continue).',
    kind: 'write',
    idempotent: true,
    input: { id: workflowId, enabled: z.boolean() },
    run: (api, { id, enabled }) => api({ method: 'PATCH', path: `/workflows/${segment(id)}`, body: { enabled } }),
  }),
  defineTool({
    name: 'list_workflow_executions',
    title: 'List workflow executions',
    description: 'A workflow’s executions (one per contact run) newest first, with status and current step.',
    kind: 'read',
    input: {
      id: workflowId,
      status: z.enum(executionStatuses).optional(),
      ...pageArgs,
    },
    run: (api, { id, ...query }) => api({ method: 'GET', path: `/workflows/${segment(id)}/executions`, query }),
  }),
]
