import { useDebouncedValue } from '@mantine/hooks'
import { useState } from 'react'

/** A list's search box, one option filter and its page: any filter change goes back to page 1. */
export function useListFilters() {
  const [search, setSearchText] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 300)
  const [option, setOptionValue] = useState<string | null>(null)
  const [page, setPage] = useState(1)
  return {
    search,
    /** The search as sent to the API, once typing pauses. */
    debounced,
    option,
    page,
    setPage,
    setSearch(text: string) {
      setSearchText(text)
      setPage(1)
    },
    setOption(value: string | null) {
      setOptionValue(value)
      setPage(1)
    },
    /** Whether anything narrows the list, so an empty result says "none match" rather than "none yet". */
    filtered: Boolean(debounced || option),
  }
}

export type ListFilterState = ReturnType<typeof useListFilters>
