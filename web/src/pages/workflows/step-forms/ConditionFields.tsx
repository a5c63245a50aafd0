import { Alert, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import { ConditionBuilder, type ConditionErrors, type ConditionTree } from '../../../components/conditions'
import type { ConfigFieldsProps } from './fields'

type Filter = ConditionTree['groups'][number]['filters'][number]

const filterPath = 'groups.0.filters.0'

/** The stored single comparison as the builder's one filter (a new step starts from the builder's blank filter). */
function filterOf(config: Record<string, unknown>): Filter {
  const filter: Filter = {
    field: typeof config.field === 'string' ? config.field : 'email',
    operator: typeof config.operator === 'string' ? config.operator : 'contains',
  }
  if (config.value !== undefined) filter.value = config.value
  if (config.unit === 'minutes' || config.unit === 'hours' || config.unit === 'days') filter.unit = config.unit
  return filter
}

/**
 * CONDITION (yes/no): one comparison, edited with the shared condition builder. The step's config holds a single
 * filter (Plunk's `{field, operator, value}`), so only the tree's first filter is kept, and the form says so when
 * more were added. Multi-branch conditions (`mode: "multi"`) are left as stored.
 */
export function ConditionFields({ config, onChange, errorFor }: ConfigFieldsProps) {
  const [tree, setTree] = useState<ConditionTree>(() => ({ logic: 'AND', groups: [{ filters: [filterOf(config)] }] }))
  if (config.mode === 'multi') {
    return (
      <Text size="sm" c="dimmed">
        This step chooses among several branches; such conditions are edited through the API.
      </Text>
    )
  }
  const errors: ConditionErrors = {}
  for (const key of ['field', 'operator', 'value', 'unit']) {
    const message = errorFor(key)
    if (message) errors[`${filterPath}.${key}`] = message
  }
  const [first] = tree.groups
  const extra =
    tree.groups.length > 1 || (first !== undefined && (first.filters.length > 1 || first.conditions !== undefined))
  const change = (next: ConditionTree) => {
    setTree(next)
    const first = next.groups[0]?.filters[0]
    if (first) onChange({ field: first.field, operator: first.operator, value: first.value, unit: first.unit })
  }
  return (
    <Stack gap="xs">
      <Text size="sm">
        Contacts matching this filter take the <strong>yes</strong> branch; the others take <strong>no</strong>.
      </Text>
      <ConditionBuilder value={tree} onChange={change} errors={errors} label="Step condition" />
      {extra && (
        <Alert color="yellow" role="status">
          A condition step tests one filter: only the first filter of the first group is saved.
        </Alert>
      )}
      {errorFor('') && (
        <Text size="sm" c="red">
          {errorFor('')}
        </Text>
      )}
    </Stack>
  )
}
