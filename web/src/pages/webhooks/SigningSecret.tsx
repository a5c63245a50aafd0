import { Alert, Button, Code, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import type { Webhook } from '../../api/types'
import { rotateWebhookSecret, webhookQueries } from '../../api/webhooks'
import { ErrorAlert } from '../../components/states'
import { SecretOnce } from './SecretOnce'
import { exactTime } from './webhook-labels'

/**
 * The signing secret is shown only when made (creation, rotation): the API has no way to read it back. Here: that
 * fact, the overlap of a recent rotation, and "Rotate secret" with what a rotation does to the receiver.
 */
export function SigningSecret({ endpoint, admin }: { endpoint: Webhook; admin: boolean }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const [opened, dialog] = useDisclosure(false)
  const rotate = useMutation({
    mutationFn: () => rotateWebhookSecret(project.id, endpoint.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookQueries.all(project.id) }),
  })
  const close = () => {
    dialog.close()
    // The new secret leaves memory with its dialog.
    rotate.reset()
  }
  const overlapping = endpoint.previousSecretExpiresAt

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="secret-title">
      <Title order={2} size="h4" id="secret-title" mb="xs">
        Signing secret
      </Title>
      <Stack gap="sm">
        <Text size="sm">
          Each delivery carries a <Code>webhook-signature</Code> header made with this endpoint's secret. The secret was
          shown once, when the endpoint was added or its secret last rotated; Mailroom keeps it sealed and cannot show
          it again. Lost it? Rotate it.
        </Text>
        {overlapping && (
          <Text size="sm" data-testid="secret-overlap">
            Rotated recently: deliveries are signed with both the new and the previous secret until{' '}
            {exactTime(overlapping)}.
          </Text>
        )}
        {admin && (
          <Group>
            <Button color="red.9" variant="outline" onClick={dialog.open}>
              Rotate secret…
            </Button>
          </Group>
        )}
      </Stack>
      <Modal
        opened={opened}
        onClose={close}
        title={rotate.data ? 'New signing secret' : 'Rotate the signing secret?'}
        size="lg"
        centered
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {rotate.data ? (
          <Stack>
            <SecretOnce secret={rotate.data.secret} />
            <Text size="sm">
              Until {exactTime(rotate.data.previousSecretExpiresAt)} every delivery carries two signatures, one per
              secret; after that, only the new secret signs. Give your receiver the new secret before then.
            </Text>
            <Group justify="flex-end">
              <Button onClick={close}>Done</Button>
            </Group>
          </Stack>
        ) : (
          <Stack>
            <Alert color="red" variant="light">
              <Text size="sm">
                Mailroom makes a new secret and shows it once. For a day, the old secret keeps signing beside it: each
                delivery's <Code>webhook-signature</Code> header carries both signatures, so your receiver keeps
                accepting deliveries while you give it the new secret. After that day only the new secret signs.
              </Text>
              {overlapping && (
                <Text size="sm" mt="xs" fw={600}>
                  A rotation is already in its overlap: the secret from before it stops signing at once, leaving the
                  current secret and the new one.
                </Text>
              )}
            </Alert>
            {rotate.isError && <ErrorAlert error={rotate.error} title="Not rotated" />}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button color="red.9" loading={rotate.isPending} onClick={() => rotate.mutate()}>
                Rotate secret
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Paper>
  )
}
