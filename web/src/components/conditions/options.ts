import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { useProject } from '../../api/project-context'
import { listSegments, segmentsKey } from '../../api/segments'
import type { ContactFieldList, EventNameList } from '../../api/types'

/** The names a filter row offers: the project's custom data keys, event names and segments. */
export function useConditionOptions() {
  const { project } = useProject()
  const fields = useQuery({
    queryKey: ['project', project.id, 'contact-fields'],
    queryFn: () => api<ContactFieldList>('/contacts/fields'),
    staleTime: 60_000,
  })
  const events = useQuery({
    queryKey: ['project', project.id, 'event-names'],
    queryFn: () => api<EventNameList>('/events/names'),
    staleTime: 60_000,
  })
  const segments = useQuery({ queryKey: segmentsKey(project.id), queryFn: listSegments })
  return {
    dataKeys: (fields.data?.fields ?? []).filter((field) => !field.standard).map((field) => field.field),
    eventNames: (events.data?.data ?? []).map((event) => event.name),
    segments: (segments.data ?? []).map((segment) => ({ value: segment.id, label: segment.name })),
  }
}

export type ConditionOptions = ReturnType<typeof useConditionOptions>
