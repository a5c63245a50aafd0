import { api } from './client'
import type { Segment } from './types'

export const segmentsKey = (projectId: string) => ['project', projectId, 'segments']
export const listSegments = () => api<Segment[]>('/segments')
