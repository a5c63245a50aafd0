import { useQuery } from '@tanstack/react-query'
import { contactFieldsQuery } from '../../api/contacts'
import { useProject } from '../../api/project-context'
import { segmentsQuery } from '../../api/segments'
import { eventNamesQuery } from '../../api/workflows'

/** The names a filter row offers: the project's custom data keys, event names and segments. */
export function useConditionOptions() {
  const { project } = useProject()
  const fields = useQuery({ ...contactFieldsQuery(project.id), staleTime: 60_000 })
  const events = useQuery({ ...eventNamesQuery(project.id), staleTime: 60_000 })
  const segments = useQuery(segmentsQuery(project.id))
  return {
    dataKeys: (fields.data?.fields ?? []).filter((field) => !field.standard).map((field) => field.field),
    eventNames: (events.data?.data ?? []).map((event) => event.name),
    segments: (segments.data ?? []).map((segment) => ({ value: segment.id, label: segment.name })),
  }
}

export type ConditionOptions = ReturnType<typeof useConditionOptions>
