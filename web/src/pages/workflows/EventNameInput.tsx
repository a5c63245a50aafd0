import { Autocomplete } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { eventQueries } from '../../api/events'
import { useProject } from '../../api/project-context'

/** An event name: any text, with the names this project has tracked offered as suggestions. */
export function EventNameInput({
  label,
  value,
  onChange,
  error,
  description,
  required,
}: {
  label: string
  value: string
  onChange(value: string): void
  error?: string
  description?: string
  required?: boolean
}) {
  const { project } = useProject()
  const names = useQuery(eventQueries.names(project.id))
  return (
    <Autocomplete
      label={label}
      description={description}
      placeholder="e.g. order.placed"
      value={value}
      onChange={onChange}
      error={error}
      required={required}
      data={(names.data?.data ?? []).filter((name) => !name.reserved).map((name) => name.name)}
      comboboxProps={{ withinPortal: true }}
    />
  )
}
