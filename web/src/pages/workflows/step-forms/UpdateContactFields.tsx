import { Select, Stack } from '@mantine/core'
import type { ConfigFieldsProps } from './fields'
import { JsonField } from './JsonField'

const subscriptionActions = [
  { value: 'none', label: 'Leave as it is' },
  { value: 'subscribe', label: 'Subscribe' },
  { value: 'unsubscribe', label: 'Unsubscribe' },
]

/** UPDATE_CONTACT: data fields to set on the contact, and/or a change of subscription. */
export function UpdateContactFields({ config, onChange, errorFor }: ConfigFieldsProps) {
  return (
    <Stack gap="sm">
      <JsonField
        label="Data to set"
        description="Merged into the contact's data."
        placeholder='{"plan": "pro"}'
        value={config.updates}
        onChange={(updates) => {
          const { updates: _, ...rest } = config
          onChange(updates === undefined ? rest : { ...rest, updates })
        }}
        error={errorFor('updates')}
      />
      <Select
        label="Subscription"
        data={subscriptionActions}
        value={typeof config.subscriptionAction === 'string' ? config.subscriptionAction : 'none'}
        allowDeselect={false}
        onChange={(subscriptionAction) => onChange({ ...config, subscriptionAction: subscriptionAction ?? 'none' })}
        error={errorFor('subscriptionAction') ?? errorFor('')}
        comboboxProps={{ withinPortal: true }}
      />
    </Stack>
  )
}
