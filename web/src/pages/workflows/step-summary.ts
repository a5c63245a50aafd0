import type { WorkflowStep } from '../../api/types'

/** One line under a step's name on the graph: what it does, in a few words. */
export function stepSummary(step: WorkflowStep): string {
  const config = step.config
  switch (step.type) {
    case 'TRIGGER':
      return typeof config.eventName === 'string' ? `When ${config.eventName} is tracked` : ''
    case 'SEND_EMAIL':
      return step.templateId ? `Template: ${step.template?.name ?? 'unknown'}` : 'No template yet'
    case 'DELAY':
      return `Wait ${String(config.amount)} ${String(config.unit)}`
    case 'WAIT_FOR_EVENT':
      return `Until ${String(config.eventName)}${typeof config.timeout === 'number' ? `, or ${config.timeout} s` : ''}`
    case 'CONDITION':
      if (typeof config.field !== 'string') return ''
      return [`If ${config.field}`, config.operator, config.value, config.unit]
        .filter((part) => typeof part === 'string' || typeof part === 'number')
        .join(' ')
    case 'WEBHOOK':
      return `${String(config.method ?? 'POST')} ${String(config.url ?? '')}`
    case 'UPDATE_CONTACT':
      return config.subscriptionAction && config.subscriptionAction !== 'none'
        ? String(config.subscriptionAction)
        : `Set ${Object.keys(config.updates ?? {}).join(', ')}`
    case 'EXIT':
      return typeof config.reason === 'string' ? config.reason : ''
  }
}
