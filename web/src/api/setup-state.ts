import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import { projectScope } from './keys'
import type { SetupState } from './types'

/** The onboarding steps the checklist shows; first contact, campaign and workflow are not part of setup. */
export const setupSteps = ['domainAdded', 'domainVerified', 'firstEmailSent', 'firstEventTracked'] as const

export function setupFinished(state: SetupState): boolean {
  return setupSteps.every((step) => state[step])
}

export const setupStateQuery = (projectId: string) =>
  queryOptions({
    queryKey: [...projectScope(projectId), 'setup-state'],
    queryFn: async () => (await api<{ data: SetupState }>(`/projects/${projectId}/setup-state`)).data,
  })
