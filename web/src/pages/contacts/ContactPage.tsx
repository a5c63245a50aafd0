import { Anchor, Button, Code, Group, Paper, Stack, Switch, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams } from 'react-router'
import { contactQueries, deleteContact, updateContactSubscription } from '../../api/contacts'
import { useProject } from '../../api/project-context'
import type { Contact } from '../../api/types'
import { EmptyState, ErrorAlert, PageHeader, QueryState } from '../../components/states'
import { ActivityFeed } from '../activity/ActivityFeed'
import { ContactEmails } from './ContactEmails'

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

export function ContactPage() {
  const { id = '' } = useParams()
  const { project } = useProject()
  const contact = useQuery(contactQueries.detail(project.id, id))
  return (
    <>
      <Anchor component={Link} to="/contacts" size="sm">
        ← All contacts
      </Anchor>
      <QueryState query={contact} label="Loading the contact">
        {(loaded) => <ContactDetails contact={loaded} />}
      </QueryState>
    </>
  )
}

function ContactDetails({ contact }: { contact: Contact }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const update = useMutation({
    mutationFn: (subscribed: boolean) => updateContactSubscription(project.id, contact.id, subscribed),
    onSuccess: (updated) => {
      queryClient.setQueryData(contactQueries.detail(project.id, contact.id).queryKey, updated)
      // The change is an entry of the contact's activity too.
      void queryClient.invalidateQueries({ queryKey: contactQueries.activity(project.id, contact.id).queryKey })
      return queryClient.invalidateQueries({ queryKey: contactQueries.all(project.id) })
    },
  })
  const remove = useMutation({
    mutationFn: () => deleteContact(project.id, contact.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: contactQueries.all(project.id) })
      navigate('/contacts', { replace: true })
    },
  })
  // The activity feed of this contact: the same human labels and sentences as the Activity page.
  const activity = useQuery(contactQueries.activity(project.id, contact.id))
  const fields = Object.entries(contact.data)

  return (
    <Stack mt="sm" gap="lg" maw={900}>
      <PageHeader title={contact.email}>
        <Button
          color="red.9"
          variant="outline"
          loading={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete ${contact.email}? Its events and history go with it.`)) remove.mutate()
          }}
        >
          Delete contact
        </Button>
      </PageHeader>
      {remove.isError && <ErrorAlert error={remove.error} title="Could not delete the contact" />}
      <Paper withBorder p="md">
        <Group justify="space-between">
          <Switch
            label="Subscribed to marketing email"
            checked={contact.subscribed}
            disabled={update.isPending}
            onChange={(event) => update.mutate(event.currentTarget.checked)}
          />
          <Text size="xs" c="dimmed">
            Created {new Date(contact.createdAt).toLocaleString()} · updated{' '}
            {new Date(contact.updatedAt).toLocaleString()}
          </Text>
        </Group>
        {contact.snoozedUntil && (
          <Text size="sm" mt="xs">
            Snoozed until {new Date(contact.snoozedUntil).toLocaleString()}
          </Text>
        )}
        {update.isError && <ErrorAlert error={update.error} title="Could not change the subscription" />}
      </Paper>

      <section aria-labelledby="contact-data">
        <Title order={2} size="h4" mb="xs" id="contact-data">
          Data
        </Title>
        {fields.length === 0 ? (
          <Text size="sm" c="dimmed">
            No custom fields.
          </Text>
        ) : (
          <Paper withBorder>
            <Table aria-labelledby="contact-data">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Field</Table.Th>
                  <Table.Th scope="col">Value</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {fields.map(([field, value]) => (
                  <Table.Tr key={field}>
                    <Table.Td>
                      <Code>{field}</Code>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" style={{ wordBreak: 'break-word' }}>
                        {show(value)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        )}
      </section>

      <ContactEmails contactId={contact.id} />

      <section aria-labelledby="contact-activity">
        <Title order={2} size="h4" mb="xs" id="contact-activity">
          Recent activity
        </Title>
        <QueryState query={activity} label="Loading activity">
          {(page) =>
            page.data.length === 0 ? (
              <EmptyState title="No activity yet">
                Emails to this contact and events tracked for it appear here.
              </EmptyState>
            ) : (
              <ActivityFeed entries={page.data} label="Recent activity" withContact={false} />
            )
          }
        </QueryState>
      </section>
    </Stack>
  )
}
