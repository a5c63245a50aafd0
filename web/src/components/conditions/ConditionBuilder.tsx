import { Button, Group, Paper, SegmentedControl, Stack, Text } from '@mantine/core'
import { useId } from 'react'
import { type ConditionErrors, errorsUnder } from './errors'
import { FilterRow } from './FilterRow'
import { type ConditionGroup, type ConditionTree, emptyFilter, emptyGroup } from './model'
import { type ConditionOptions, useConditionOptions } from './options'

export type ConditionBuilderProps = {
  value: ConditionTree
  onChange(value: ConditionTree): void
  /** The API's field errors inside this tree, keyed by path (`groups.1.filters.0.operator`); see `conditionErrors`. */
  errors?: ConditionErrors
  /** Names the builder for assistive technology, e.g. "Segment condition". */
  label?: string
}

/**
 * The visual condition builder (DESIGN.md §4): groups of filters over contact fields, custom data, events,
 * email activity and segment membership. Filters in a group are ANDed; groups are joined by the tree's logic.
 */
export function ConditionBuilder({ value, onChange, errors = {}, label = 'Condition' }: ConditionBuilderProps) {
  const options = useConditionOptions()
  return <TreeEditor tree={value} onChange={onChange} errors={errors} options={options} label={label} depth={0} />
}

type TreeProps = {
  tree: ConditionTree
  onChange(tree: ConditionTree): void
  errors: ConditionErrors
  options: ConditionOptions
  label: string
  depth: number
}

/** Nesting stops where the server's limit does (`conditionLimits.maxDepth`). */
const maxDepth = 5

function TreeEditor({ tree, onChange, errors, options, label, depth }: TreeProps) {
  const logicId = useId()
  const setGroup = (index: number, group: ConditionGroup | undefined) => {
    const groups = group
      ? tree.groups.map((g, i) => (i === index ? group : g))
      : tree.groups.filter((_, i) => i !== index)
    onChange({ ...tree, groups })
  }
  const treeError = errors[''] ?? errors.groups ?? errors.logic
  const joiner = tree.logic === 'AND' ? 'and' : 'or'
  return (
    <Stack gap="xs" role="group" aria-label={label}>
      <Group gap="xs">
        <Text size="sm" id={logicId}>
          Match contacts in
        </Text>
        <SegmentedControl
          size="xs"
          aria-labelledby={logicId}
          value={tree.logic}
          onChange={(logic) => onChange({ ...tree, logic: logic as ConditionTree['logic'] })}
          data={[
            { value: 'AND', label: 'all groups' },
            { value: 'OR', label: 'any group' },
          ]}
        />
      </Group>
      {tree.groups.map((group, index) => {
        const groupLabel = `${depth > 0 ? `${label}, group` : 'Group'} ${index + 1}`
        return (
          // Groups have no ids; their position is their identity, as in the API's error paths.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <Stack key={index} gap={4}>
            {index > 0 && (
              <Text size="xs" fw={700} c="dimmed" tt="uppercase" aria-hidden>
                {joiner}
              </Text>
            )}
            <GroupEditor
              group={group}
              onChange={(next) => setGroup(index, next)}
              onRemove={tree.groups.length > 1 ? () => setGroup(index, undefined) : undefined}
              errors={errorsUnder(errors, `groups.${index}`)}
              options={options}
              label={groupLabel}
              depth={depth}
            />
          </Stack>
        )
      })}
      <Group>
        <Button
          variant="default"
          size="xs"
          onClick={() => onChange({ ...tree, groups: [...tree.groups, emptyGroup()] })}
        >
          {depth > 0 ? 'Add nested group' : 'Add group'}
        </Button>
      </Group>
      {treeError && (
        <Text size="sm" c="red" role="alert">
          {treeError}
        </Text>
      )}
    </Stack>
  )
}

type GroupProps = {
  group: ConditionGroup
  onChange(group: ConditionGroup): void
  onRemove?: () => void
  errors: ConditionErrors
  options: ConditionOptions
  label: string
  depth: number
}

function GroupEditor({ group, onChange, onRemove, errors, options, label, depth }: GroupProps) {
  const setFilter = (index: number, filter: ConditionGroup['filters'][number] | undefined) => {
    const filters = filter
      ? group.filters.map((f, i) => (i === index ? filter : f))
      : group.filters.filter((_, i) => i !== index)
    onChange({ ...group, filters })
  }
  const canRemoveFilter = group.filters.length > 1 || group.conditions !== undefined
  const groupError = errors[''] ?? errors.filters
  return (
    <Paper
      withBorder
      p="sm"
      role="group"
      aria-label={label}
      bg={depth % 2 ? 'var(--mantine-color-default-hover)' : undefined}
    >
      <Group justify="space-between" mb={4}>
        <Text size="sm" fw={600}>
          {label}
          <Text span size="xs" c="dimmed" fw={400}>
            {' '}
            — every filter must match
          </Text>
        </Text>
        {onRemove && (
          <Button variant="subtle" color="red.9" size="compact-xs" onClick={onRemove} aria-label={`Remove ${label}`}>
            Remove group
          </Button>
        )}
      </Group>
      {group.filters.map((filter, index) => {
        const filterLabel = `${label}, filter ${index + 1}`
        return (
          <FilterRow
            // biome-ignore lint/suspicious/noArrayIndexKey: filters are addressed by position, as in error paths
            key={index}
            filter={filter}
            onChange={(next) => setFilter(index, next)}
            onRemove={canRemoveFilter ? () => setFilter(index, undefined) : undefined}
            errors={errorsUnder(errors, `filters.${index}`)}
            options={options}
            label={filterLabel}
          />
        )
      })}
      {group.conditions && (
        <Paper withBorder p="sm" mt="xs">
          <Group justify="space-between" mb={4}>
            <Text size="sm" fw={600}>
              And these nested conditions
            </Text>
            <Button
              variant="subtle"
              color="red.9"
              size="compact-xs"
              onClick={() => onChange({ filters: group.filters.length ? group.filters : [emptyFilter()] })}
            >
              Remove nested conditions
            </Button>
          </Group>
          <TreeEditor
            tree={group.conditions}
            onChange={(conditions) => onChange({ ...group, conditions })}
            errors={errorsUnder(errors, 'conditions')}
            options={options}
            label={`${label}, nested`}
            depth={depth + 1}
          />
        </Paper>
      )}
      <Group gap="xs" mt={4}>
        {/* Not the light variant: hovered, its label falls under 4.5:1 contrast. */}
        <Button
          variant="default"
          size="xs"
          onClick={() => onChange({ ...group, filters: [...group.filters, emptyFilter()] })}
        >
          Add filter
        </Button>
        {!group.conditions && depth + 1 < maxDepth && (
          <Button
            variant="subtle"
            size="xs"
            onClick={() => onChange({ ...group, conditions: { logic: 'OR', groups: [emptyGroup()] } })}
          >
            Add nested conditions
          </Button>
        )}
      </Group>
      {groupError && (
        <Text size="sm" c="red" role="alert">
          {groupError}
        </Text>
      )}
    </Paper>
  )
}
