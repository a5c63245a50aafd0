import { Alert, Anchor, Button, Code, Group, Modal, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import { useProject } from '../../api/project-context'
import { projectsQuery, regenerateProjectKeys } from '../../api/projects'
import { CopyValue } from '../../components/copy'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert, PageHeader } from '../../components/states'
import { FirstEmailCommand } from '../onboarding/snippets'

function masked(key: string): string {
  return `${key.slice(0, 7)}${'•'.repeat(12)}${key.slice(-4)}`
}

export function KeysPage() {
  const { project } = useProject()
  const [revealed, setRevealed] = useState(false)
  const [confirming, confirm] = useDisclosure(false)
  const queryClient = useQueryClient()
  const rotate = useMutation({
    mutationFn: () => regenerateProjectKeys(project.id),
    onSuccess: (updated) => {
      queryClient.setQueryData(projectsQuery.queryKey, (projects) =>
        projects?.map((p) => (p.id === updated.id ? updated : p)),
      )
      confirm.close()
      notifySuccess('The old keys no longer work.', 'Keys rotated')
    },
  })

  return (
    <>
      <PageHeader title="API keys" />
      <Stack gap="lg" maw={900}>
        <Text size="sm" c="dimmed">
          Requests send <Code>Authorization: Bearer &lt;key&gt;</Code>. The public key only tracks events (safe in
          browsers); the secret key works on every endpoint and must stay on your servers. Apps that send over SMTP use
          the secret key as their password: see the{' '}
          <Anchor component={Link} to="/smtp" underline="always">
            SMTP relay page
          </Anchor>
          .
        </Text>
        <Paper withBorder p="md">
          <Table verticalSpacing="sm" aria-label={`Keys of ${project.name}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Key</Table.Th>
                <Table.Th scope="col">Value</Table.Th>
                <Table.Th scope="col">
                  <span className="visually-hidden">Copy</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th scope="row">Public key</Table.Th>
                <Table.Td>
                  <Code data-testid="public-key" style={{ wordBreak: 'break-all' }}>
                    {project.public}
                  </Code>
                </Table.Td>
                <Table.Td>
                  <CopyValue value={project.public} label="public key" />
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Secret key</Table.Th>
                <Table.Td>
                  <Code data-testid="secret-key" style={{ wordBreak: 'break-all' }}>
                    {revealed ? project.secret : masked(project.secret)}
                  </Code>
                </Table.Td>
                <Table.Td>
                  <CopyValue value={project.secret} label="secret key" />
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          <Group mt="sm">
            <Button variant="default" size="xs" onClick={() => setRevealed((value) => !value)} aria-pressed={revealed}>
              {revealed ? 'Hide secret key' : 'Show secret key'}
            </Button>
          </Group>
        </Paper>

        <Paper withBorder p="md">
          <Title order={2} size="h4" mb="xs">
            Send a first email
          </Title>
          <FirstEmailCommand domainsHint="keys" />
        </Paper>

        <Paper withBorder p="md">
          <Title order={2} size="h4" mb="xs">
            Rotate keys
          </Title>
          <Text size="sm" mb="sm">
            Replaces both keys. Use it when a key may have leaked.
          </Text>
          <Button color="red.9" variant="outline" onClick={confirm.open}>
            Rotate keys…
          </Button>
        </Paper>
      </Stack>

      <Modal
        opened={confirming}
        onClose={confirm.close}
        title="Rotate both keys?"
        centered
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack>
          <Alert color="red" variant="light">
            The current public and secret keys stop working at once. Every server and app that uses them will get 401
            errors until you give it the new keys.
          </Alert>
          {rotate.isError && <ErrorAlert error={rotate.error} title="Rotation failed" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={confirm.close}>
              Cancel
            </Button>
            <Button color="red.9" loading={rotate.isPending} onClick={() => rotate.mutate()}>
              Rotate keys now
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  )
}
