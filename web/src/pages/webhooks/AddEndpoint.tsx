import { Anchor, Button, Group, Modal, Stack, Text } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import { useProject } from '../../api/project-context'
import type { WebhookCreated } from '../../api/types'
import { createWebhook, webhookQueries } from '../../api/webhooks'
import { EndpointForm } from './EndpointForm'
import { EventTypeWarnings, SecretOnce } from './SecretOnce'

/** "Add endpoint": the form, then the new endpoint's secret, shown this once, with any event-type warnings. */
export function AddEndpoint() {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const [formOpen, form] = useDisclosure(false)
  const [created, setCreated] = useState<WebhookCreated>()

  const save = async (input: Parameters<typeof createWebhook>[1]) => {
    const answer = await createWebhook(project.id, input)
    form.close()
    setCreated(answer)
    await queryClient.invalidateQueries({ queryKey: webhookQueries.all(project.id) })
  }

  return (
    <>
      <Button onClick={form.open}>Add endpoint</Button>
      <EndpointForm
        opened={formOpen}
        title="Add a webhook endpoint"
        submitLabel="Add endpoint"
        save={save}
        onClose={form.close}
      />
      <Modal
        opened={created !== undefined}
        // Dropped on close: the secret stays in no state once its dialog is gone.
        onClose={() => setCreated(undefined)}
        title="Endpoint added"
        size="lg"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {created && (
          <Stack>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              Events matching its types now go to <strong>{created.url}</strong>.
            </Text>
            <SecretOnce secret={created.secret} />
            <EventTypeWarnings warnings={created.warnings} />
            <Group justify="space-between">
              <Anchor component={Link} to={`/webhooks/${created.id}`} size="sm" onClick={() => setCreated(undefined)}>
                Open its delivery log
              </Anchor>
              <Button onClick={() => setCreated(undefined)}>Done</Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  )
}
