import { api } from './client'
import type { Domain } from './types'

export const listDomains = (projectId: string) => api<Domain[]>(`/domains/project/${projectId}`)
