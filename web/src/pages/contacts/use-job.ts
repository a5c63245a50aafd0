import { type QueryKey, type UseQueryOptions, useQuery } from '@tanstack/react-query'

type Job = { state: 'queued' | 'running' | 'completed' | 'failed' }

export const jobDone = (job: Job | undefined) => job?.state === 'completed' || job?.state === 'failed'

/** A queued contacts job (`contactJobQueries`: import or bulk action), polled until it completes or fails. */
export function useJob<T extends Job, Key extends QueryKey>(job: UseQueryOptions<T, Error, T, Key>, started: boolean) {
  return useQuery({
    ...job,
    enabled: started,
    refetchInterval: (query) => (jobDone(query.state.data) ? false : 500),
  })
}
