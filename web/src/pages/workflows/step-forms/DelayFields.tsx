import { Group, NumberInput, Select } from '@mantine/core'
import type { DelayConfig } from '../../../api/types'
import { type ConfigFieldsProps, numberOrEmpty } from './fields'

export const timeUnits = [
  { value: 'minutes', label: 'Minutes' },
  { value: 'hours', label: 'Hours' },
  { value: 'days', label: 'Days' },
]

function unitOf(value: unknown): DelayConfig['unit'] {
  return value === 'minutes' || value === 'days' ? value : 'hours'
}

/** DELAY: wait an amount of minutes, hours or days (at most a year). */
export function DelayFields({ config, onChange, errorFor }: ConfigFieldsProps) {
  const unit = unitOf(config.unit)
  return (
    <Group grow align="flex-start">
      <NumberInput
        label="Wait for"
        required
        min={0}
        value={numberOrEmpty(config.amount)}
        onChange={(amount) => onChange({ ...config, unit, amount: typeof amount === 'number' ? amount : undefined })}
        error={errorFor('amount')}
      />
      <Select
        label="Unit"
        data={timeUnits}
        value={unit}
        allowDeselect={false}
        onChange={(next) => onChange({ ...config, unit: unitOf(next) })}
        error={errorFor('unit')}
        comboboxProps={{ withinPortal: true }}
      />
    </Group>
  )
}
