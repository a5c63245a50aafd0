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
import { type ReactNode, useState } from 'react'
import { Link, useParams } from 'react-router'
import { accountMailbox, type Mailbox as MailboxQueries, projectMailbox } from '../../api/mailbox'
import { useProject } from '../../api/project-context'
import type { CapturedMessage } from '../../api/types'
import { CursorPager } from '../../components/CursorPager'
import { EmailPreview } from '../../components/EmailPreview'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { type ParsedMessage, parseMessage } from './parse-message'

/** One mailbox as the page shows it: where its list and messages come from, and the path of its pages. */
type Box = {
  queries: MailboxQueries
  path: string
  empty: ReactNode
}

/** The project's mailbox: its captured mail, and to admins the invitations it mailed. */
export function MailboxPage() {
  const { project } = useProject()
  return (
    <Mailbox
      current="project"
      box={{
        queries: projectMailbox(project.id),
        path: '/mailbox',
        empty: (
          <EmptyState title="No captured messages">
            Send an email with the API (see Get started for a ready command) and it appears here within seconds.
          </EmptyState>
        ),
      }}
    />
  )
}

/** The signed-in user's own account emails: open to an unverified user too, so verification is never a dead end. */
export function AccountMailboxPage() {
  return (
    <Mailbox
      current="account"
      box={{
        queries: accountMailbox,
        path: '/mailbox/account',
        empty: (
          <EmptyState title="No account emails">
            Verification and password-reset emails for your address appear here while this server captures mail.
          </EmptyState>
        ),
      }}
    />
  )
}

function Mailbox({ current, box }: { current: 'project' | 'account'; box: Box }) {
  const { id } = useParams()
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined])
  const cursor = cursors[cursors.length - 1]
  const messages = useQuery({
    ...box.queries.page(cursor),
    placeholderData: keepPreviousData,
    // New captures show up while the page is open.
    refetchInterval: 5_000,
  })

  return (
    <>
      <PageHeader title="Mailbox" />
      <Text size="sm" c="dimmed" mb="sm">
        With <code>MAIL_TRANSPORT=capture</code> outgoing email is kept here instead of being sent.
      </Text>
      <Group component="nav" aria-label="Mailboxes" gap="xs" mb="md">
        {(
          [
            ['project', '/mailbox', 'This project'],
            ['account', '/mailbox/account', 'Your account emails'],
          ] as const
        ).map(([value, to, label]) => (
          <Button
            key={value}
            component={Link}
            to={to}
            size="xs"
            variant={current === value ? 'filled' : 'default'}
            aria-current={current === value ? 'page' : undefined}
          >
            {label}
          </Button>
        ))}
      </Group>
      <QueryState query={messages} label="Loading captured messages">
        {(page) =>
          page.data.length === 0 && cursors.length === 1 ? (
            box.empty
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
                          to={`${box.path}/${message.id}`}
                          active={message.id === id}
                          aria-current={message.id === id ? 'page' : undefined}
                          label={message.subject || '(no subject)'}
                          description={describe(message)}
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
                  <MessageView id={id} box={box} />
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

/** Account emails (Mailroom's own, not the project's mail) say so before their recipient and time. */
function describe(message: CapturedMessage): string {
  const sent = `To ${message.to.join(', ')} · ${new Date(message.createdAt).toLocaleString()}`
  return message.source === 'ACCOUNT' ? `Account email · ${sent}` : sent
}

function MessageView({ id, box }: { id: string; box: Box }) {
  const raw = useQuery({
    ...box.queries.message(id, async (buffer) => ({ buffer, parsed: await parseMessage(buffer) })),
    staleTime: Number.POSITIVE_INFINITY,
  })
  return (
    <QueryState query={raw} label="Opening the message">
      {({ buffer, parsed }) => <Message id={id} raw={buffer} message={parsed} closePath={box.path} />}
    </QueryState>
  )
}

function Message({
  id,
  raw,
  message,
  closePath,
}: {
  id: string
  raw: ArrayBuffer
  message: ParsedMessage
  closePath: string
}) {
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
      <Anchor component={Link} to={closePath} size="sm" mt="sm" display="inline-block">
        Close message
      </Anchor>
    </Paper>
  )
}
