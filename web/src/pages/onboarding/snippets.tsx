import { Anchor, Code, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router'
import { configQuery } from '../../api/config'
import { domainQueries } from '../../api/domains'
import { useProject } from '../../api/project-context'
import { meQuery } from '../../api/session'
import type { Domain } from '../../api/types'
import { CodeSnippet } from '../../components/CodeSnippet'

/** JSON for a single-quoted shell argument: a quote inside closes and reopens the quoting. */
function shellJson(value: unknown): string {
  return `'${JSON.stringify(value).replaceAll("'", "'\\''")}'`
}

function curl(key: string, path: string, body: unknown): string {
  return `curl -X POST ${window.location.origin}${path} \\
  -H 'authorization: Bearer ${key}' \\
  -H 'content-type: application/json' \\
  -d ${shellJson(body)}`
}

/** How a command on screen shows the secret key, which its copy holds in full. */
export const maskedSecret = 'sk_••••••••'

/**
 * The domain a first email can come from as things stand: a verified one, or with the capture transport (which
 * sends nothing) any registered one. Undefined while none would be accepted.
 */
export function firstEmailSender(domains: Domain[], transport: string | undefined): string | undefined {
  const verified = domains.find((domain) => domain.verified)
  if (verified) return verified.domain
  return transport === 'capture' ? domains[0]?.domain : undefined
}

/**
 * The ready-to-run first send, the same on the checklist and the keys page: from a domain the server accepts now,
 * to the user's own address, with the secret key (shown masked, copied in full). Without such a domain it says what
 * is missing instead of offering a command the API would refuse.
 */
export function FirstEmailCommand({ domainsHint }: { domainsHint: 'checklist' | 'keys' }) {
  const { project } = useProject()
  const me = useQuery(meQuery)
  const config = useQuery(configQuery)
  const domains = useQuery(domainQueries.list(project.id))
  const capture = config.data?.transport === 'capture'
  if (!domains.data || !me.data || !config.data) return null
  const sender = firstEmailSender(domains.data, config.data.transport)
  if (!sender) {
    // Named apart from the menu's "Domains": one link of that name per page.
    const pending = domains.data[0]?.domain
    const fix =
      domainsHint === 'checklist' ? (
        pending ? (
          `verify ${pending} in step 2`
        ) : (
          'add one in step 1'
        )
      ) : (
        <>
          <Anchor component={Link} to="/domains" underline="always">
            {pending ? `verify ${pending}` : 'add your sender domain'}
          </Anchor>{' '}
          first
        </>
      )
    return (
      <Text size="sm">
        The <Code>from</Code> address must use {pending ? 'a verified domain' : 'one of your domains'}: {fix}.
      </Text>
    )
  }
  const body = { from: `hello@${sender}`, to: me.data.email, subject: 'Hello from Mailroom', body: '<p>It works!</p>' }
  return (
    <>
      <Text size="sm" c="dimmed" mb="xs">
        Run this from a terminal; it uses the project's secret key (shown masked, copied in full) and mails you at{' '}
        {me.data.email}.{' '}
        {capture ? (
          <>
            This server captures mail, so the message joins the{' '}
            <Anchor underline="always" component={Link} to="/mailbox">
              captured messages
            </Anchor>{' '}
            in the Mailbox instead of leaving this machine.
          </>
        ) : null}
      </Text>
      <CodeSnippet
        label="send command"
        code={curl(maskedSecret, '/v1/send', body)}
        copyValue={curl(project.secret, '/v1/send', body)}
      />
    </>
  )
}

export function TrackEventStep({ email }: { email: string | undefined }) {
  const { project } = useProject()
  const body = { event: 'signed-up', email: email ?? 'you@example.com' }
  return (
    <>
      <Text size="sm" c="dimmed" mb="xs">
        Events come from your app or website. The public key may only track, so it is safe in browser code. Emails you
        send are not events: this step waits for one you track.
      </Text>
      <CodeSnippet label="track command" code={curl(project.public, '/v1/track', body)} />
    </>
  )
}
