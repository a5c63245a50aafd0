import { useQuery } from '@tanstack/react-query'
import { contactQueries } from '../../api/contacts'
import { eventQueries } from '../../api/events'
import { useProject } from '../../api/project-context'
import { segmentQueries } from '../../api/segments'

/** The names a filter row offers: the project's custom data keys, event names and segments. */
export function useConditionOptions() {
  const { project } = useProject()
  const fields = useQuery({ ...contactQueries.fields(project.id), staleTime: 60_000 })
  const events = useQuery({ ...eventQueries.names(project.id), staleTime: 60_000 })
  const segments = useQuery(segmentQueries.list(project.id))
  return {
    dataKeys: (fields.data?.fields ?? []).filter((field) => !field.standard).map((field) => field.field),
    eventNames: (events.data?.data ?? []).map((event) => event.name),
    segments: (segments.data ?? []).map((segment) => ({ value: segment.id, label: segment.name })),
  }
}

export type ConditionOptions = ReturnType<typeof useConditionOptions>
