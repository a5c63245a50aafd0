import { Button, Code, Group, Modal, Stack, TagsInput, Text, TextInput } from '@mantine/core'
import { useMutation, useQuery } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { ApiError } from '../../api/client'
import { eventQueries } from '../../api/events'
import { useProject } from '../../api/project-context'
import type { Webhook, WebhookInput } from '../../api/types'
import { ErrorAlert } from '../../components/states'

/** The families of events Mailroom emits, offered beside the names this project has tracked. */
const familyPatterns = ['*', 'email.*', 'contact.*', 'segment.*', 'workflow.*', 'campaign.*', 'billing.*', 'webhook.*']

/**
 * The API names a bad pattern by its index (`eventTypes.2`) or the list as a whole (`eventTypes`): one message for
 * the field, each bad pattern quoted.
 */
function eventTypesError(error: ApiError | undefined, eventTypes: string[]): string | undefined {
  if (!error) return undefined
  const messages = error.fieldErrors.flatMap(({ field, message }) => {
    if (field === 'eventTypes') return [message]
    const index = /^eventTypes\.(\d+)$/.exec(field)?.[1]
    return index === undefined ? [] : [`“${eventTypes[Number(index)] ?? ''}”: ${message}`]
  })
  return messages.length > 0 ? messages.join('; ') : undefined
}

/**
 * Create or edit an endpoint: its URL, a description and the event types it receives. The API's field errors show
 * beside their fields; `save` resolves once saved (its caller closes the form and shows what the API answered).
 */
export function EndpointForm({
  opened,
  title,
  submitLabel,
  initial,
  save,
  onClose,
}: {
  opened: boolean
  title: string
  submitLabel: string
  initial?: Webhook
  save(input: WebhookInput): Promise<unknown>
  onClose(): void
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      {/* Mounted afresh on each opening, so an edit starts from the endpoint as it is now. */}
      {opened && <EndpointFields initial={initial} submitLabel={submitLabel} save={save} onClose={onClose} />}
    </Modal>
  )
}

function EndpointFields({
  initial,
  submitLabel,
  save,
  onClose,
}: {
  initial?: Webhook
  submitLabel: string
  save(input: WebhookInput): Promise<unknown>
  onClose(): void
}) {
  const { project } = useProject()
  const names = useQuery(eventQueries.names(project.id))
  const [url, setUrl] = useState(initial?.url ?? '')
  const [description, setDescription] = useState(initial?.description ?? '')
  const [eventTypes, setEventTypes] = useState<string[]>(initial?.eventTypes ?? [])
  const saving = useMutation({ mutationFn: save })
  const error = saving.error instanceof ApiError ? saving.error : undefined
  const tracked = (names.data?.data ?? []).map((name) => name.name)
  const suggestions = [...new Set([...familyPatterns, ...tracked])]

  const submit = (event: FormEvent) => {
    event.preventDefault()
    saving.mutate({ url, description, eventTypes })
  }

  return (
    <form onSubmit={submit} noValidate aria-label={submitLabel}>
      <Stack>
        {saving.isError && (!error || error.general) && <ErrorAlert error={saving.error} title="Not saved" />}
        <TextInput
          label="Endpoint URL"
          description="An http:// or https:// address on the internet that answers POST requests with a 2xx status."
          placeholder="https://example.com/webhooks/mailroom"
          required
          type="url"
          value={url}
          onChange={(event) => setUrl(event.currentTarget.value)}
          error={error?.forField('url')}
          data-autofocus
        />
        <TextInput
          label="Description"
          description="Optional: what receives these events (your CRM, the billing service)."
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
          error={error?.forField('description')}
          maxLength={500}
        />
        <TagsInput
          label="Event types"
          description={
            <>
              Exact names or patterns, Enter after each: <Code>*</Code> stands for any characters, so{' '}
              <Code>email.*</Code> is every email event and <Code>*</Code> alone is every event.
            </>
          }
          placeholder={eventTypes.length === 0 ? 'email.*' : undefined}
          required
          value={eventTypes}
          onChange={setEventTypes}
          data={suggestions}
          error={eventTypesError(error, eventTypes)}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear event types' }}
          comboboxProps={{ withinPortal: true }}
        />
        <Text size="xs" c="dimmed">
          A pattern that matches no event Mailroom knows is saved all the same (a custom event may be tracked later),
          with a warning.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={saving.isPending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  )
}
