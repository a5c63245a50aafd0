import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import { projectScope } from './keys'
import type {
  ExecutionDetail,
  ExecutionInput,
  ExecutionPage,
  ExecutionStarted,
  ExecutionStatus,
  StepChange,
  StepInput,
  StepSaved,
  Transition,
  TransitionInput,
  Workflow,
  WorkflowChange,
  WorkflowDetail,
  WorkflowInput,
  WorkflowPage,
} from './types'

/** Every workflow query of a project starts with this key, so one invalidation refreshes lists, graphs and runs. */
const all = (projectId: string) => [...projectScope(projectId), 'workflows'] as const
const one = (projectId: string, id: string) => [...all(projectId), id] as const

export const workflowQueries = {
  all,
  list: (projectId: string, params: { page: number; search?: string }) =>
    queryOptions({
      queryKey: [...all(projectId), 'list', params],
      queryFn: () => api<WorkflowPage>(`/workflows${query({ ...params, pageSize: 20 })}`, { projectId }),
    }),
  /** The workflow with its steps and transitions: the graph. */
  detail: (projectId: string, id: string) =>
    queryOptions({
      queryKey: one(projectId, id),
      queryFn: () => api<WorkflowDetail>(`/workflows/${id}`, { projectId }),
    }),
  executions: (projectId: string, workflowId: string, params: { page: number; status?: ExecutionStatus }) =>
    queryOptions({
      queryKey: [...one(projectId, workflowId), 'executions', params],
      queryFn: () =>
        api<ExecutionPage>(`/workflows/${workflowId}/executions${query({ pageSize: 20, ...params })}`, { projectId }),
    }),
  execution: (projectId: string, workflowId: string, executionId: string) =>
    queryOptions({
      queryKey: [...one(projectId, workflowId), 'executions', executionId],
      queryFn: () => api<ExecutionDetail>(`/workflows/${workflowId}/executions/${executionId}`, { projectId }),
    }),
}

export const createWorkflow = (projectId: string, input: WorkflowInput) =>
  api<Workflow>('/workflows', { method: 'POST', body: input, projectId })
export const updateWorkflow = (projectId: string, id: string, change: WorkflowChange) =>
  api<Workflow>(`/workflows/${id}`, { method: 'PATCH', body: change, projectId })
export const deleteWorkflow = (projectId: string, id: string) =>
  api<void>(`/workflows/${id}`, { method: 'DELETE', projectId })

export const addStep = (projectId: string, workflowId: string, input: StepInput) =>
  api<StepSaved>(`/workflows/${workflowId}/steps`, { method: 'POST', body: input, projectId })
export const updateStep = (projectId: string, workflowId: string, stepId: string, change: StepChange) =>
  api<StepSaved>(`/workflows/${workflowId}/steps/${stepId}`, { method: 'PATCH', body: change, projectId })
/** `splice` re-points the transitions into the step to its next step, so the flow continues around it. */
export const deleteStep = (projectId: string, workflowId: string, stepId: string, splice: boolean) =>
  api<void>(`/workflows/${workflowId}/steps/${stepId}${query({ splice })}`, { method: 'DELETE', projectId })

export const connectSteps = (projectId: string, workflowId: string, input: TransitionInput) =>
  api<Transition>(`/workflows/${workflowId}/transitions`, { method: 'POST', body: input, projectId })
export const disconnectSteps = (projectId: string, workflowId: string, transitionId: string) =>
  api<void>(`/workflows/${workflowId}/transitions/${transitionId}`, { method: 'DELETE', projectId })

export const startExecution = (projectId: string, workflowId: string, input: ExecutionInput) =>
  api<ExecutionStarted>(`/workflows/${workflowId}/executions`, { method: 'POST', body: input, projectId })
export const cancelExecution = (projectId: string, workflowId: string, executionId: string) =>
  api<ExecutionDetail>(`/workflows/${workflowId}/executions/${executionId}`, { method: 'DELETE', projectId })
export const cancelAllExecutions = (projectId: string, workflowId: string) =>
  api<{ cancelled: number }>(`/workflows/${workflowId}/executions/cancel-all`, { method: 'POST', projectId })
