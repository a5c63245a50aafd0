import { Select, Stack, TextInput } from '@mantine/core'
import { type ConfigFieldsProps, text } from './fields'
import { JsonField } from './JsonField'

const methods = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE']

/** WEBHOOK: a request to a URL; `{{contact.email}}`-style placeholders fill the URL, headers and body. */
export function WebhookFields({ config, onChange, errorFor }: ConfigFieldsProps) {
  const set = (key: string, value: unknown) => {
    const { [key]: _, ...rest } = config
    onChange(value === undefined ? rest : { ...rest, [key]: value })
  }
  return (
    <Stack gap="sm">
      <TextInput
        label="URL"
        required
        placeholder="https://example.com/hooks/{{contact.id}}"
        value={text(config.url)}
        onChange={(event) => set('url', event.currentTarget.value)}
        error={errorFor('url')}
      />
      <Select
        label="Method"
        data={methods}
        value={text(config.method) || 'POST'}
        allowDeselect={false}
        onChange={(method) => set('method', method ?? 'POST')}
        error={errorFor('method')}
        comboboxProps={{ withinPortal: true }}
      />
      <JsonField
        label="Headers"
        description="An object of header names to values."
        placeholder='{"Authorization": "Bearer …"}'
        value={config.headers}
        onChange={(headers) => set('headers', headers)}
        error={errorFor('headers')}
      />
      <JsonField
        label="Body"
        description="Replaces the default payload (the contact, the event and the workflow) when set."
        value={config.body}
        onChange={(body) => set('body', body)}
        error={errorFor('body')}
        requireObject={false}
      />
    </Stack>
  )
}
