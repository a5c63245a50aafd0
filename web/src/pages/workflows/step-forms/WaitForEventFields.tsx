import { Checkbox, Group, NumberInput, Select, Stack } from '@mantine/core'
import { useState } from 'react'
import { EventNameInput } from '../EventNameInput'
import { timeUnits } from './DelayFields'
import { type ConfigFieldsProps, text } from './fields'

const secondsPerUnit = { minutes: 60, hours: 3_600, days: 86_400 } as const
type Unit = keyof typeof secondsPerUnit

/** The largest unit that states the stored seconds exactly. */
function splitSeconds(seconds: number): { amount: number; unit: Unit } {
  if (seconds % secondsPerUnit.days === 0) return { amount: seconds / secondsPerUnit.days, unit: 'days' }
  if (seconds % secondsPerUnit.hours === 0) return { amount: seconds / secondsPerUnit.hours, unit: 'hours' }
  return { amount: Math.round(seconds / secondsPerUnit.minutes), unit: 'minutes' }
}

/** WAIT_FOR_EVENT: the event that ends the wait, and an optional timeout that takes the other branch. */
export function WaitForEventFields({ config, onChange, errorFor }: ConfigFieldsProps) {
  const stored = typeof config.timeout === 'number' ? splitSeconds(config.timeout) : undefined
  const [unit, setUnit] = useState<Unit>(stored?.unit ?? 'days')
  const amount = stored?.amount
  const setWaitTimeout = (nextAmount: number | undefined, nextUnit: Unit) => {
    const { timeout: _, ...rest } = config
    onChange(nextAmount === undefined ? rest : { ...rest, timeout: nextAmount * secondsPerUnit[nextUnit] })
  }
  return (
    <Stack gap="sm">
      <EventNameInput
        label="Event to wait for"
        required
        value={text(config.eventName)}
        onChange={(eventName) => onChange({ ...config, eventName })}
        error={errorFor('eventName')}
      />
      <Checkbox
        label="Give up after a timeout (takes the timeout branch)"
        checked={stored !== undefined}
        onChange={(event) => setWaitTimeout(event.currentTarget.checked ? 1 : undefined, unit)}
      />
      {stored !== undefined && (
        <Group grow align="flex-start">
          <NumberInput
            label="Timeout after"
            min={1}
            allowDecimal={false}
            value={amount}
            onChange={(next) => typeof next === 'number' && setWaitTimeout(next, unit)}
            error={errorFor('timeout')}
          />
          <Select
            label="Timeout unit"
            data={timeUnits}
            value={unit}
            allowDeselect={false}
            onChange={(next) => {
              const chosen: Unit = next === 'minutes' || next === 'hours' ? next : 'days'
              setUnit(chosen)
              setWaitTimeout(amount ?? 1, chosen)
            }}
            comboboxProps={{ withinPortal: true }}
          />
        </Group>
      )}
    </Stack>
  )
}
