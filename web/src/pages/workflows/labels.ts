import type { ExecutionStatus, StepType, Workflow } from '../../api/types'

export function triggerLabel(workflow: Pick<Workflow, 'triggerType' | 'triggerConfig'>): string {
  const eventName = workflow.triggerConfig?.eventName
  if (workflow.triggerType === 'EVENT' && typeof eventName === 'string') return `Event: ${eventName}`
  return workflow.triggerType
}

export const stepTypeLabel: Record<StepType, string> = {
  TRIGGER: 'Trigger',
  SEND_EMAIL: 'Send email',
  DELAY: 'Delay',
  WAIT_FOR_EVENT: 'Wait for event',
  CONDITION: 'Condition',
  WEBHOOK: 'Webhook',
  UPDATE_CONTACT: 'Update contact',
  EXIT: 'Exit',
}

/** A step type as the execution history names it (a plain string there). */
export function stepTypeName(type: string): string {
  return Object.entries(stepTypeLabel).find(([key]) => key === type)?.[1] ?? type
}

/** Dark shades: white badge text on them passes the contrast check. */
export const executionStatusColor: Record<ExecutionStatus, string> = {
  RUNNING: 'blue.9',
  WAITING: 'indigo.8',
  COMPLETED: 'teal.9',
  EXITED: 'gray.7',
  FAILED: 'red.9',
  CANCELLED: 'grape.9',
}

export const executionStatuses: ExecutionStatus[] = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED']
