import '@mantine/dates/styles.css'
import { Group, NumberInput, Select, TextInput } from '@mantine/core'
import { DateInput } from '@mantine/dates'
import { type ConditionFilter, type ConditionUnit, units, type ValueShape } from './model'

type Props = {
  shape: ValueShape
  filter: ConditionFilter
  onChange(patch: Partial<ConditionFilter>): void
  valueError?: string
  unitError?: string
}

const booleanOptions = [
  { value: 'true', label: 'yes' },
  { value: 'false', label: 'no' },
]

/** The value part of a filter row, shaped by its operator: text, yes/no, a date, a number or text, or a span. */
export function ValueInput({ shape, filter, onChange, valueError, unitError }: Props) {
  const value = filter.value
  switch (shape) {
    case 'none':
      return null
    case 'text':
      return (
        <TextInput
          aria-label="Value"
          placeholder="Text"
          value={typeof value === 'string' ? value : ''}
          onChange={(event) => onChange({ value: event.currentTarget.value })}
          error={valueError}
          w={200}
        />
      )
    case 'boolean':
      return <BooleanSelect value={value} onChange={onChange} error={valueError} />
    case 'date':
      return (
        <DateInput
          aria-label="Date"
          placeholder="Pick a date"
          valueFormat="YYYY-MM-DD"
          value={typeof value === 'string' && value ? value.slice(0, 10) : null}
          onChange={(date) => onChange({ value: date ?? '' })}
          error={valueError}
          w={160}
          popoverProps={{ withinPortal: true }}
        />
      )
    case 'scalar':
      return <ScalarInput value={value} onChange={onChange} error={valueError} />
    case 'comparable':
      return (
        <TextInput
          aria-label="Value"
          placeholder="Number or date (2026-01-31)"
          value={value === undefined || value === null ? '' : String(value)}
          // A number when it reads as one, else text the server reads as an ISO date.
          onChange={(event) => onChange({ value: numberOrText(event.currentTarget.value) })}
          error={valueError}
          w={200}
        />
      )
    case 'span':
      return (
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <NumberInput
            aria-label="Amount"
            min={1}
            allowDecimal={false}
            value={typeof value === 'number' || typeof value === 'string' ? value : ''}
            onChange={(amount) => onChange({ value: amount === '' ? undefined : Number(amount) })}
            error={valueError}
            w={90}
          />
          <Select
            aria-label="Unit"
            data={units}
            value={filter.unit ?? null}
            allowDeselect={false}
            onChange={(unit) => unit && onChange({ unit: unit as ConditionUnit })}
            error={unitError}
            w={110}
          />
        </Group>
      )
  }
}

function numberOrText(text: string): string | number {
  const trimmed = text.trim()
  return trimmed !== '' && Number.isFinite(Number(trimmed)) && !/^0\d/.test(trimmed) ? Number(trimmed) : text
}

function BooleanSelect({ value, onChange, error }: { value: unknown; onChange: Props['onChange']; error?: string }) {
  return (
    <Select
      aria-label="Value"
      data={booleanOptions}
      value={typeof value === 'boolean' ? String(value) : null}
      allowDeselect={false}
      onChange={(choice) => choice && onChange({ value: choice === 'true' })}
      error={error}
      w={100}
    />
  )
}

type ScalarType = 'text' | 'number' | 'boolean'

/** `equals` on custom data compares JSON values, so the text "42" and the number 42 differ: the type is chosen. */
function ScalarInput({ value, onChange, error }: { value: unknown; onChange: Props['onChange']; error?: string }) {
  const type: ScalarType = typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'text'
  const setType = (next: ScalarType) => {
    if (next === 'boolean') onChange({ value: true })
    else if (next === 'number') onChange({ value: Number(value) || 0 })
    else onChange({ value: value === undefined ? '' : String(value) })
  }
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start">
      <Select
        aria-label="Value type"
        data={[
          { value: 'text', label: 'Text' },
          { value: 'number', label: 'Number' },
          { value: 'boolean', label: 'Yes/no' },
        ]}
        value={type}
        allowDeselect={false}
        onChange={(next) => next && setType(next as ScalarType)}
        w={100}
      />
      {type === 'boolean' ? (
        <BooleanSelect value={value} onChange={onChange} error={error} />
      ) : type === 'number' ? (
        <NumberInput
          aria-label="Value"
          value={typeof value === 'number' ? value : ''}
          onChange={(number) => onChange({ value: number === '' ? 0 : Number(number) })}
          error={error}
          w={120}
        />
      ) : (
        <TextInput
          aria-label="Value"
          placeholder="Text or date"
          value={typeof value === 'string' ? value : ''}
          onChange={(event) => onChange({ value: event.currentTarget.value })}
          error={error}
          w={180}
        />
      )}
    </Group>
  )
}
