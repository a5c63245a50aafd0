import { Button, Group, Stack } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { useProject } from '../../api/project-context'
import type { Webhook, WebhookInput } from '../../api/types'
import { deleteWebhook, updateWebhook, webhookQueries } from '../../api/webhooks'
import { ConfirmAction } from '../../components/ConfirmAction'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert } from '../../components/states'
import { EndpointForm } from './EndpointForm'
import { EventTypeWarnings } from './SecretOnce'

/** Edit, enable or disable, and delete (after asking) one endpoint. */
export function EndpointActions({ endpoint }: { endpoint: Webhook }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const [editing, edit] = useDisclosure(false)
  // The warnings of the last save stay on show until the next one: a toast would be gone before they are read.
  const [warnings, setWarnings] = useState<string[]>([])
  const refresh = () => queryClient.invalidateQueries({ queryKey: webhookQueries.all(project.id) })

  const save = async (input: WebhookInput) => {
    const saved = await updateWebhook(project.id, endpoint.id, input)
    edit.close()
    setWarnings(saved.warnings)
    notifySuccess('Endpoint saved')
    await refresh()
  }
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => updateWebhook(project.id, endpoint.id, { enabled }),
    onSuccess: async (saved) => {
      notifySuccess(
        saved.enabled ? 'Events go to this endpoint again' : 'No events go to this endpoint now',
        saved.enabled ? 'Endpoint enabled' : 'Endpoint disabled',
      )
      await refresh()
    },
  })

  return (
    <Stack gap="sm" mt="md">
      <EventTypeWarnings warnings={warnings} />
      <Group gap="sm">
        <Button variant="default" onClick={edit.open}>
          Edit endpoint
        </Button>
        <Button variant="default" loading={toggle.isPending} onClick={() => toggle.mutate(!endpoint.enabled)}>
          {endpoint.enabled ? 'Disable endpoint' : 'Enable endpoint'}
        </Button>
        <ConfirmAction
          label="Delete endpoint…"
          title="Delete this endpoint?"
          confirmLabel="Delete endpoint"
          action={() => deleteWebhook(project.id, endpoint.id)}
          onDone={async () => {
            notifySuccess(`${endpoint.url} receives no more events`, 'Endpoint deleted')
            navigate('/webhooks')
            await refresh()
          }}
        >
          No more events go to {endpoint.url}, and its delivery log is deleted with it. Messages waiting for a retry are
          dropped. To pause deliveries instead, disable the endpoint.
        </ConfirmAction>
      </Group>
      {toggle.isError && <ErrorAlert error={toggle.error} title="Not changed" />}
      <EndpointForm
        opened={editing}
        title="Edit the endpoint"
        submitLabel="Save endpoint"
        initial={endpoint}
        save={save}
        onClose={edit.close}
      />
    </Stack>
  )
}
