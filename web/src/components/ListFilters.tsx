import { Group, Select, TextInput } from '@mantine/core'
import type { ListFilterState } from './list-filters'

/** The search box and option filter above a list. */
export function ListFilters({
  state,
  searchPlaceholder,
  optionLabel,
  optionPlaceholder,
  options,
}: {
  state: ListFilterState
  searchPlaceholder: string
  optionLabel: string
  optionPlaceholder: string
  options: string[]
}) {
  return (
    <Group mb="md" align="flex-end">
      <TextInput
        label="Search"
        placeholder={searchPlaceholder}
        type="search"
        value={state.search}
        onChange={(event) => state.setSearch(event.currentTarget.value)}
        w={320}
      />
      <Select
        label={optionLabel}
        placeholder={optionPlaceholder}
        clearable
        value={state.option}
        onChange={state.setOption}
        data={options}
        w={200}
      />
    </Group>
  )
}
