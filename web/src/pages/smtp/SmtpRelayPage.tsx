import { Alert, Anchor, Code, List, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { configQuery } from '../../api/config'
import { useProject } from '../../api/project-context'
import type { SmtpRelay } from '../../api/types'
import { CopyValue } from '../../components/copy'
import { PageHeader, QueryState } from '../../components/states'
import { maskedSecret } from '../onboarding/snippets'
import { RelayTestCommand, relayUserName } from './relay-test-command'

/**
 * What to paste into an app that can only send over SMTP (WordPress, Gitea, Django...). The settings are the
 * server's (GET /config); the password is this project's secret key, shown masked and copied in full.
 */
export function SmtpRelayPage() {
  const config = useQuery(configQuery)
  return (
    <>
      <PageHeader title="SMTP relay" />
      <Stack gap="lg" maw={900}>
        <Text size="sm" c="dimmed">
          Apps that can only send over SMTP send through Mailroom with these settings. Their mail gets what{' '}
          <Code>/v1/send</Code> gives: the sender domain's DKIM signature, suppressions, tracking and activity. A
          refusal (an unverified sender domain, a suppressed recipient, a limit) is answered during the SMTP
          conversation, so it shows in the app's own error log.
        </Text>
        <QueryState query={config} label="Loading the relay's settings">
          {({ smtpRelay }) =>
            smtpRelay.enabled ? <RelaySettings relay={smtpRelay} /> : <RelayOff relay={smtpRelay} />
          }
        </QueryState>
      </Stack>
    </>
  )
}

function RelayOff({ relay }: { relay: Extract<SmtpRelay, { enabled: false }> }) {
  return (
    <Alert color="red.9" variant="outline" title="The SMTP relay is off on this server" role="status">
      <Text size="sm" mb="xs">
        The server says: <Code>{relay.reason}</Code>.
      </Text>
      <Text size="sm">
        To turn it on, give it a certificate for the host name your apps will connect to: set{' '}
        <Code>SMTP_RELAY_TLS_KEY_FILE</Code> and <Code>SMTP_RELAY_TLS_CERT_FILE</Code> to its PEM key and certificate
        files (and leave <Code>SMTP_RELAY_ENABLED</Code> unset or <Code>true</Code>), then restart the server. The
        README's “SMTP relay” section lists the other settings.
      </Text>
    </Alert>
  )
}

function RelaySettings({ relay }: { relay: Extract<SmtpRelay, { enabled: true }> }) {
  const { project } = useProject()
  return (
    <>
      {relay.selfSigned && (
        <Alert color="indigo.9" variant="outline" title="Self-signed certificate (development)" role="status">
          <Text size="sm">
            This server made its own certificate, which apps do not trust. For a test, allow an unverified certificate
            in the app; for production, set <Code>SMTP_RELAY_TLS_KEY_FILE</Code> and{' '}
            <Code>SMTP_RELAY_TLS_CERT_FILE</Code> to a real certificate for <Code>{relay.host}</Code>.
          </Text>
        </Alert>
      )}
      <Paper withBorder p="md">
        <Table verticalSpacing="sm" aria-label="SMTP settings">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Setting</Table.Th>
              <Table.Th scope="col">Value</Table.Th>
              <Table.Th scope="col">
                <span className="visually-hidden">Copy</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <Setting name="Host" value={relay.host} copyLabel="host" />
            <Setting
              name="Port (STARTTLS)"
              value={String(relay.ports.starttls)}
              copyLabel="STARTTLS port"
              hint="Security STARTTLS (some apps say TLS): the connection is upgraded before the login, which is refused until then."
            />
            <Setting
              name="Port (SSL/TLS)"
              value={String(relay.ports.tls)}
              copyLabel="SSL/TLS port"
              hint="Security SSL/TLS (some apps say SSL): encrypted from the first byte. Use either port."
            />
            <Setting
              name="User name"
              value={relayUserName}
              copyLabel="user name"
              hint={
                <>
                  Any user name works, <Code>plunk</Code> included: the password says which project sends.
                </>
              }
            />
            <Setting
              name="Password"
              value={project.secret}
              shown={maskedSecret}
              copyLabel="password"
              hint={
                <>
                  This project's secret key (never the public key), copied in full. Show or rotate it on the{' '}
                  <Anchor component={Link} to="/keys" underline="always">
                    keys page
                  </Anchor>
                  ; a rotated key stops working here too.
                </>
              }
            />
            <Table.Tr>
              <Table.Th scope="row">Recipients per message</Table.Th>
              <Table.Td>
                <Code>{relay.maxRecipients}</Code>
                <Text size="xs" c="dimmed" mt={4}>
                  Further recipients are refused (452) and the app sends them in another message.
                </Text>
              </Table.Td>
              <Table.Td />
            </Table.Tr>
          </Table.Tbody>
        </Table>
      </Paper>
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="xs">
          Try it from a terminal
        </Title>
        <RelayTestCommand relay={relay} />
      </Paper>
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="xs">
          Good to know
        </Title>
        <List size="sm" spacing={4}>
          <List.Item>
            The <Code>From</Code> domain must be one of this project's sender domains, verified unless this server
            captures mail.
          </List.Item>
          <List.Item>
            Every recipient, <Code>Bcc</Code> included, gets their own email; the <Code>Bcc</Code> header is never
            delivered.
          </List.Item>
          <List.Item>
            An <Code>Idempotency-Key</Code> header makes a resend after a lost answer deliver nothing twice.
          </List.Item>
        </List>
      </Paper>
    </>
  )
}

/** One row of the settings: its value as shown (a secret masked), a hint, and a copy button for the real value. */
function Setting({
  name,
  value,
  shown = value,
  copyLabel,
  hint,
}: {
  name: string
  value: string
  shown?: string
  copyLabel: string
  hint?: ReactNode
}) {
  return (
    <Table.Tr>
      <Table.Th scope="row">{name}</Table.Th>
      <Table.Td>
        <Code style={{ wordBreak: 'break-all' }}>{shown}</Code>
        {hint && (
          <Text size="xs" c="dimmed" mt={4}>
            {hint}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <CopyValue value={value} label={copyLabel} />
      </Table.Td>
    </Table.Tr>
  )
}
