import { Select } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api, query } from '../../api/client'
import { useProject } from '../../api/project-context'
import type { ContactPage } from '../../api/types'

/** Picks the contact the preview is rendered for, searching the project's contacts by address. */
export function PreviewContactPicker({ value, onChange }: { value: string | null; onChange(id: string | null): void }) {
  const { project } = useProject()
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 250)
  const [chosen, setChosen] = useState<{ value: string; label: string }>()
  const contacts = useQuery({
    queryKey: ['project', project.id, 'contacts', 'preview-picker', debounced],
    queryFn: () =>
      api<ContactPage>(`/contacts${query({ limit: 10, search: debounced, sort: 'email', dir: 'asc' })}`, {
        projectId: project.id,
      }),
    placeholderData: keepPreviousData,
  })
  const options = (contacts.data?.data ?? []).map((contact) => ({ value: contact.id, label: contact.email }))
  // The chosen contact stays an option when a later search no longer lists it.
  if (chosen && !options.some((option) => option.value === chosen.value)) options.unshift(chosen)
  return (
    <Select
      label="Preview as"
      placeholder="A contact without data"
      size="xs"
      searchable
      clearable
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
      w={280}
    />
  )
}
