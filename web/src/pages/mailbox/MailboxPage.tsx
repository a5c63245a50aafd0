import {
  Anchor,
  Badge,
  Button,
  Grid,
  Group,
  NavLink,
  Paper,
  ScrollArea,
  Stack,
  Table,
  Tabs,
  Text,
  Title,
} from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { api, query, request } from '../../api/client'
import { useProject } from '../../api/project-context'
import type { MailboxPage as MailboxList } from '../../api/types'
import { CursorPager } from '../../components/CursorPager'
import { EmailPreview } from '../../components/EmailPreview'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { type ParsedMessage, parseMessage } from './parse-message'

export function MailboxPage() {
  const { id } = useParams()
  const { project } = useProject()
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined])
  const cursor = cursors[cursors.length - 1]
  const messages = useQuery({
    queryKey: ['project', project.id, 'mailbox', cursor],
    queryFn: () => api<MailboxList>(`/mailbox${query({ limit: 25, cursor })}`, { projectId: project.id }),
    placeholderData: keepPreviousData,
    // New captures show up while the page is open.
    refetchInterval: 5_000,
  })

  return (
    <>
      <PageHeader title="Mailbox" />
      <Text size="sm" c="dimmed" mb="md">
        With <code>MAIL_TRANSPORT=capture</code> outgoing email is kept here instead of being sent.
      </Text>
      <QueryState query={messages} label="Loading captured messages">
        {(page) =>
          page.data.length === 0 && cursors.length === 1 ? (
            <EmptyState title="No captured messages">
              Send an email with the API (see API keys for a ready command) and it appears here within seconds.
            </EmptyState>
          ) : (
            <Grid gap="md">
              <Grid.Col span={4}>
                <Paper withBorder>
                  <ScrollArea.Autosize mah="70vh">
                    <nav aria-label="Captured messages">
                      {page.data.map((message) => (
                        <NavLink
                          variant="filled"
                          key={message.id}
                          component={Link}
                          to={`/mailbox/${message.id}`}
                          active={message.id === id}
                          aria-current={message.id === id ? 'page' : undefined}
                          label={message.subject || '(no subject)'}
                          description={`To ${message.to.join(', ')} · ${new Date(message.createdAt).toLocaleString()}`}
                        />
                      ))}
                    </nav>
                  </ScrollArea.Autosize>
                </Paper>
                <CursorPager
                  page={cursors.length}
                  hasMore={page.hasMore}
                  busy={messages.isFetching}
                  onPrevious={() => setCursors((list) => list.slice(0, -1))}
                  onNext={() => setCursors((list) => [...list, page.cursor])}
                />
              </Grid.Col>
              <Grid.Col span={8}>
                {id ? (
                  <MessageView id={id} />
                ) : (
                  <EmptyState title="Choose a message">
                    Pick a message on the left to see it as its recipient would.
                  </EmptyState>
                )}
              </Grid.Col>
            </Grid>
          )
        }
      </QueryState>
    </>
  )
}

function MessageView({ id }: { id: string }) {
  const { project } = useProject()
  const raw = useQuery({
    queryKey: ['project', project.id, 'mailbox', 'message', id],
    queryFn: async () => {
      const buffer = await (await request(`/mailbox/${id}/raw`, { projectId: project.id })).arrayBuffer()
      return { buffer, parsed: await parseMessage(buffer) }
    },
    staleTime: Number.POSITIVE_INFINITY,
  })
  return (
    <QueryState query={raw} label="Opening the message">
      {({ buffer, parsed }) => <Message id={id} raw={buffer} message={parsed} />}
    </QueryState>
  )
}

function Message({ id, raw, message }: { id: string; raw: ArrayBuffer; message: ParsedMessage }) {
  const download = () => {
    // The .eml route needs the X-Project-Id header, so the download is made from the bytes already fetched.
    const url = URL.createObjectURL(new Blob([raw], { type: 'message/rfc822' }))
    const link = document.createElement('a')
    link.href = url
    link.download = `${id}.eml`
    link.click()
    URL.revokeObjectURL(url)
  }
  return (
    <Paper withBorder p="md" component="article" aria-labelledby="message-subject">
      <Group justify="space-between" align="flex-start" mb="sm">
        <Title order={2} size="h4" id="message-subject">
          {message.subject || '(no subject)'}
        </Title>
        <Button size="xs" variant="default" onClick={download}>
          Download .eml
        </Button>
      </Group>
      {/* Fixed columns: a long address wraps inside its cell instead of widening the page on a phone. */}
      <Table
        withRowBorders={false}
        verticalSpacing={2}
        mb="sm"
        aria-label="Message headers"
        layout="fixed"
        style={{ overflowWrap: 'anywhere' }}
      >
        <Table.Tbody>
          <Table.Tr>
            <Table.Th scope="row" w={80}>
              From
            </Table.Th>
            <Table.Td>{message.from}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th scope="row">To</Table.Th>
            <Table.Td>{message.to}</Table.Td>
          </Table.Tr>
          {message.date && (
            <Table.Tr>
              <Table.Th scope="row">Date</Table.Th>
              <Table.Td>{new Date(message.date).toLocaleString()}</Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      {message.attachments.length > 0 && (
        <Group gap="xs" mb="sm">
          {message.attachments.map((attachment) => (
            <Badge key={attachment.filename} variant="outline" color="gray.8">
              {attachment.filename} ({Math.ceil(attachment.size / 1024)} KB)
            </Badge>
          ))}
        </Group>
      )}
      <Tabs defaultValue={message.html ? 'html' : 'text'}>
        <Tabs.List>
          <Tabs.Tab value="html" disabled={!message.html}>
            HTML
          </Tabs.Tab>
          <Tabs.Tab value="text" disabled={!message.text}>
            Plain text
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="html" pt="xs">
          {message.html && <EmailPreview html={message.html} title={`Message: ${message.subject}`} height={520} />}
        </Tabs.Panel>
        <Tabs.Panel value="text" pt="xs">
          <Stack>
            <Text component="pre" size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {message.text}
            </Text>
          </Stack>
        </Tabs.Panel>
      </Tabs>
      <Anchor component={Link} to="/mailbox" size="sm" mt="sm" display="inline-block">
        Close message
      </Anchor>
    </Paper>
  )
}
