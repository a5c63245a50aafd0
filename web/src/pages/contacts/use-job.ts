import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { useProject } from '../../api/project-context'

type Job = { state: 'queued' | 'running' | 'completed' | 'failed' }

export const jobDone = (job: Job | undefined) => job?.state === 'completed' || job?.state === 'failed'

/** A queued contacts job (import or bulk action), polled until it completes or fails. */
export function useJob<T extends Job>(path: string | undefined) {
  const { project } = useProject()
  return useQuery({
    queryKey: ['project', project.id, 'job', path],
    queryFn: () => api<T>(path ?? '', { projectId: project.id }),
    enabled: path !== undefined,
    refetchInterval: (query) => (jobDone(query.state.data) ? false : 500),
  })
}
