import { api, query } from './client'
import type {
  EventNameList,
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
export const workflowsKey = (projectId: string) => ['project', projectId, 'workflows']
export const workflowKey = (projectId: string, id: string) => [...workflowsKey(projectId), id]

export const listWorkflows = (params: { page: number; search?: string }) =>
  api<WorkflowPage>(`/workflows${query({ page: params.page, pageSize: 20, search: params.search })}`)
export const getWorkflow = (id: string) => api<WorkflowDetail>(`/workflows/${id}`)
export const createWorkflow = (input: WorkflowInput) => api<Workflow>('/workflows', { method: 'POST', body: input })
export const updateWorkflow = (id: string, change: WorkflowChange) =>
  api<Workflow>(`/workflows/${id}`, { method: 'PATCH', body: change })
export const deleteWorkflow = (id: string) => api<void>(`/workflows/${id}`, { method: 'DELETE' })

export const addStep = (workflowId: string, input: StepInput) =>
  api<StepSaved>(`/workflows/${workflowId}/steps`, { method: 'POST', body: input })
export const updateStep = (workflowId: string, stepId: string, change: StepChange) =>
  api<StepSaved>(`/workflows/${workflowId}/steps/${stepId}`, { method: 'PATCH', body: change })
/** `splice` re-points the transitions into the step to its next step, so the flow continues around it. */
export const deleteStep = (workflowId: string, stepId: string, splice: boolean) =>
  api<void>(`/workflows/${workflowId}/steps/${stepId}${query({ splice })}`, { method: 'DELETE' })

export const connectSteps = (workflowId: string, input: TransitionInput) =>
  api<Transition>(`/workflows/${workflowId}/transitions`, { method: 'POST', body: input })
export const disconnectSteps = (workflowId: string, transitionId: string) =>
  api<void>(`/workflows/${workflowId}/transitions/${transitionId}`, { method: 'DELETE' })

export const listExecutions = (workflowId: string, params: { page: number; status?: ExecutionStatus }) =>
  api<ExecutionPage>(`/workflows/${workflowId}/executions${query({ pageSize: 20, ...params })}`)
export const getExecution = (workflowId: string, executionId: string) =>
  api<ExecutionDetail>(`/workflows/${workflowId}/executions/${executionId}`)
export const startExecution = (workflowId: string, input: ExecutionInput) =>
  api<ExecutionStarted>(`/workflows/${workflowId}/executions`, { method: 'POST', body: input })
export const cancelExecution = (workflowId: string, executionId: string) =>
  api<ExecutionDetail>(`/workflows/${workflowId}/executions/${executionId}`, { method: 'DELETE' })
export const cancelAllExecutions = (workflowId: string) =>
  api<{ cancelled: number }>(`/workflows/${workflowId}/executions/cancel-all`, { method: 'POST' })

export const eventNamesKey = (projectId: string) => ['project', projectId, 'event-names']
export const listEventNames = () => api<EventNameList>('/events/names')
