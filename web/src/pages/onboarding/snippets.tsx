import { Anchor, Code, Text } from '@mantine/core'
import { Link } from 'react-router'
import { useProject } from '../../api/project-context'
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

const maskedSecret = 'sk_••••••••'

export function SendEmailStep({ sender, to }: { sender: string | undefined; to: string | undefined }) {
  const { project } = useProject()
  const body = {
    from: `hello@${sender ?? 'your-domain.example'}`,
    to: to ?? 'you@example.com',
    subject: 'Hello from Mailroom',
    body: '<p>It works!</p>',
  }
  return (
    <>
      <Text size="sm" c="dimmed" mb="xs">
        Run this from a terminal; it uses the project's secret key (shown masked, copied in full). With the capture
        transport the message lands in the{' '}
        <Anchor underline="always" component={Link} to="/mailbox">
          Mailbox
        </Anchor>{' '}
        instead of leaving this machine.
      </Text>
      {!sender && (
        <Text size="sm" mb="xs">
          The <Code>from</Code> address must use one of your domains: add one in step 1.
        </Text>
      )}
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
        Events come from your app or website. The public key may only track, so it is safe in browser code.
      </Text>
      <CodeSnippet label="track command" code={curl(project.public, '/v1/track', body)} />
    </>
  )
}
