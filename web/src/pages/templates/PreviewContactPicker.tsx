import { Select } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { contactQueries } from '../../api/contacts'
import { useProject } from '../../api/project-context'

export type SampleContact = { id: string; email: string }

/**
 * Picks the contact the preview is rendered for, searching the project's contacts by address. With a `sample`
 * (a campaign's first recipient) that contact stands when none is picked, so there is nothing to clear.
 */
export function PreviewContactPicker({
  value,
  onChange,
  sample,
}: {
  value: string | null
  onChange(id: string | null): void
  sample?: SampleContact
}) {
  const { project } = useProject()
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 250)
  const [chosen, setChosen] = useState<{ value: string; label: string }>()
  const contacts = useQuery({
    ...contactQueries.list(project.id, { limit: 10, search: debounced, sort: 'email', dir: 'asc' }),
    placeholderData: keepPreviousData,
  })
  const options = (contacts.data?.data ?? []).map((contact) => ({ value: contact.id, label: contact.email }))
  // The chosen contact and the sample stay options when a later search no longer lists them.
  for (const kept of [chosen, sample && { value: sample.id, label: sample.email }]) {
    if (kept && !options.some((option) => option.value === kept.value)) options.unshift(kept)
  }
  return (
    <Select
      label="Preview as"
      placeholder="A contact without data"
      size="xs"
      searchable
      clearable={!sample}
      data={options}
      value={value}
      searchValue={search}
      onSearchChange={setSearch}
      onChange={(id, option) => {
        setChosen(id && option ? option : undefined)
        onChange(id)
      }}
      nothingFoundMessage={contacts.isFetching ? 'Searching…' : 'No contact matches'}
      clearButtonProps={{ 'aria-label': 'Preview without a contact' }}
      w={{ base: '100%', xs: 280 }}
    />
  )
}
