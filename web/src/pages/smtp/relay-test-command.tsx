import { Anchor, Code, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router'
import { configQuery } from '../../api/config'
import { domainQueries } from '../../api/domains'
import { useProject } from '../../api/project-context'
import { meQuery } from '../../api/session'
import type { SmtpRelay } from '../../api/types'
import { CodeSnippet } from '../../components/CodeSnippet'
import { firstEmailSender, maskedSecret } from '../onboarding/snippets'

/** Any user name is accepted (the password says which project); this one is shown, `plunk` works as well. */
export const relayUserName = 'mailroom'

/** A single-quoted shell argument. */
const quoted = (value: string) => `'${value.replaceAll("'", "'\\''")}'`

function swaks(relay: Extract<SmtpRelay, { enabled: true }>, password: string, from: string, to: string): string {
  return `swaks --server ${relay.host} --port ${relay.ports.starttls} --tls \\
  --auth-user ${relayUserName} --auth-password ${quoted(password)} \\
  --from ${quoted(from)} --to ${quoted(to)} \\
  --header 'Subject: Hello over SMTP' --body 'It works!'`
}

/**
 * A first message through the relay with swaks, from a domain the server accepts now to the user's own address,
 * the secret key masked on screen and whole in the copy. Without such a domain, what to do first.
 */
export function RelayTestCommand({ relay }: { relay: Extract<SmtpRelay, { enabled: true }> }) {
  const { project } = useProject()
  const me = useQuery(meQuery)
  const config = useQuery(configQuery)
  const domains = useQuery(domainQueries.list(project.id))
  if (!domains.data || !me.data || !config.data) return null
  const sender = firstEmailSender(domains.data, config.data.transport)
  if (!sender) {
    return (
      <Text size="sm">
        The sender must use one of your domains:{' '}
        <Anchor component={Link} to="/domains" underline="always">
          {domains.data[0] ? `verify ${domains.data[0].domain}` : 'add your sender domain'}
        </Anchor>{' '}
        first.
      </Text>
    )
  }
  const from = `hello@${sender}`
  return (
    <>
      <Text size="sm" c="dimmed" mb="xs">
        With <Code>swaks</Code> (<Code>apt install swaks</Code>), over STARTTLS, from {from} to you at {me.data.email}.
        The secret key is shown masked and copied in full.
      </Text>
      <CodeSnippet
        label="swaks command"
        code={swaks(relay, maskedSecret, from, me.data.email)}
        copyValue={swaks(relay, project.secret, from, me.data.email)}
      />
    </>
  )
}
