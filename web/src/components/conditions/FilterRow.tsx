import { ActionIcon, Autocomplete, Group, Select, Text } from '@mantine/core'
import type { ConditionErrors } from './errors'
import {
  type ConditionFilter,
  type ConditionOperator,
  contactFields,
  emailActivities,
  type FieldFamily,
  familyLabels,
  familyOf,
  fieldName,
  fieldOf,
  kindOf,
  operatorLabel,
  operatorsByKind,
  reshapeFilter,
  valueShape,
} from './model'
import type { ConditionOptions } from './options'
import { ValueInput } from './ValueInput'

type Props = {
  filter: ConditionFilter
  onChange(filter: ConditionFilter): void
  onRemove?: () => void
  /** Errors of this filter, keyed `field`, `operator`, `value`, `unit` (or '' for the filter itself). */
  errors: ConditionErrors
  options: ConditionOptions
  label: string
}

const families = (Object.keys(familyLabels) as FieldFamily[]).map((value) => ({ value, label: familyLabels[value] }))

/** The first field of a family, so switching family gives a filter the server accepts once its name is filled. */
function firstField(family: FieldFamily, options: ConditionOptions): string {
  switch (family) {
    case 'contact':
      return 'email'
    case 'emailActivity':
      return 'email.opened'
    case 'segment':
      return fieldOf('segment', options.segments[0]?.value ?? '')
    default:
      return fieldOf(family, '')
  }
}

/** One filter: what it tests (family, then field), the operator, and the value its operator needs. */
export function FilterRow({ filter, onChange, onRemove, errors, options, label }: Props) {
  const family = familyOf(filter.field)
  const kind = kindOf(filter.field)
  const operator = filter.operator as ConditionOperator
  const name = fieldName(filter.field)
  const setField = (field: string) => onChange(reshapeFilter(filter, { field }))
  const nameError = errors.field

  return (
    <Group
      role="group"
      aria-label={label}
      gap="xs"
      align="flex-start"
      wrap="wrap"
      py={4}
      data-testid="condition-filter"
    >
      <Select
        aria-label="Field type"
        data={families}
        value={family}
        allowDeselect={false}
        onChange={(next) => next && setField(firstField(next as FieldFamily, options))}
        w={150}
      />
      {(family === 'contact' || family === 'emailActivity') && (
        <Select
          aria-label={family === 'contact' ? 'Field' : 'Email activity'}
          data={(family === 'contact' ? contactFields : emailActivities).map((field) => ({ ...field }))}
          value={filter.field}
          allowDeselect={false}
          onChange={(next) => next && setField(next)}
          error={nameError}
          w={140}
        />
      )}
      {(family === 'data' || family === 'event') && (
        <Autocomplete
          aria-label={family === 'data' ? 'Data key' : 'Event name'}
          placeholder={family === 'data' ? 'key, e.g. plan' : 'name, e.g. signed-up'}
          data={family === 'data' ? options.dataKeys : options.eventNames}
          value={name}
          onChange={(next) => setField(fieldOf(family, next))}
          error={nameError}
          w={180}
        />
      )}
      {family === 'segment' && (
        <Select
          aria-label="Segment"
          placeholder="Choose a segment"
          data={options.segments}
          value={name || null}
          onChange={(next) => next && setField(fieldOf('segment', next))}
          nothingFoundMessage="No segments"
          error={nameError}
          w={200}
        />
      )}
      <Select
        aria-label="Operator"
        data={operatorsByKind[kind].map((value) => ({ value, label: operatorLabel(kind, value) }))}
        value={operatorsByKind[kind].includes(operator) ? operator : null}
        allowDeselect={false}
        onChange={(next) => next && onChange(reshapeFilter(filter, { operator: next as ConditionOperator }))}
        error={errors.operator}
        w={220}
      />
      <ValueInput
        shape={valueShape(kind, operator)}
        filter={filter}
        onChange={(patch) => onChange({ ...filter, ...patch })}
        valueError={errors.value}
        unitError={errors.unit}
      />
      {onRemove && (
        <ActionIcon variant="subtle" color="gray" size="lg" mt={2} onClick={onRemove} aria-label={`Remove ${label}`}>
          <span aria-hidden>×</span>
        </ActionIcon>
      )}
      {errors[''] && (
        <Text size="xs" c="red" w="100%" role="alert">
          {errors['']}
        </Text>
      )}
    </Group>
  )
}
