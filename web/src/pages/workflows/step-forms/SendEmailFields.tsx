import { SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useProject } from '../../../api/project-context'
import { templateQueries } from '../../../api/templates'
import type { SendEmailConfig } from '../../../api/types'
import { type ConfigFieldsProps, text } from './fields'

type Props = ConfigFieldsProps & { templateId: string | null; onTemplateChange(id: string | null): void }

/** SEND_EMAIL: the template to send, to the contact or to a fixed address. */
export function SendEmailFields({ config, onChange, errorFor, templateId, onTemplateChange }: Props) {
  const { project } = useProject()
  const templates = useQuery(templateQueries.list(project.id, { pageSize: 100, sort: 'name', dir: 'asc' }))
  const recipient = typeof config.recipient === 'object' && config.recipient !== null ? config.recipient : {}
  const custom = 'type' in recipient && recipient.type === 'CUSTOM'
  const customEmail = 'customEmail' in recipient ? text(recipient.customEmail) : ''
  const setRecipient = (next: SendEmailConfig['recipient']) => onChange({ ...config, recipient: next })
  return (
    <Stack gap="sm">
      <Select
        label="Template"
        required
        searchable
        placeholder={templates.isPending ? 'Loading templates…' : 'Pick a template'}
        data={(templates.data?.data ?? []).map((template) => ({
          value: template.id,
          label: `${template.name} — ${template.subject}`,
        }))}
        value={templateId}
        onChange={onTemplateChange}
        error={errorFor('templateId') ?? (templates.isError ? templates.error.message : undefined)}
        nothingFoundMessage="No template of that name"
        comboboxProps={{ withinPortal: true }}
      />
      {templates.isSuccess && templates.data.total === 0 && (
        <Text size="sm" c="dimmed">
          This project has no templates yet: create one under Templates first.
        </Text>
      )}
      <div>
        <Text size="sm" fw={500} id="recipient-label" mb={4}>
          Send to
        </Text>
        <SegmentedControl
          aria-labelledby="recipient-label"
          value={custom ? 'CUSTOM' : 'CONTACT'}
          onChange={(value) => setRecipient(value === 'CUSTOM' ? { type: 'CUSTOM', customEmail } : { type: 'CONTACT' })}
          data={[
            { value: 'CONTACT', label: 'The contact' },
            { value: 'CUSTOM', label: 'A fixed address' },
          ]}
        />
      </div>
      {custom && (
        <TextInput
          label="Recipient address"
          type="email"
          required
          value={customEmail}
          onChange={(event) => setRecipient({ type: 'CUSTOM', customEmail: event.currentTarget.value })}
          error={errorFor('recipient.customEmail')}
        />
      )}
    </Stack>
  )
}
