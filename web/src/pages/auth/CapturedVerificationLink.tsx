import { Anchor, Text } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { Link } from 'react-router'
import { configQuery } from '../../api/config'
import { capturedVerificationQuery } from '../../api/mailbox'

/**
 * With the capture transport no verification email ever reaches an inbox: this points to the one kept in the user's
 * account mailbox, so the banner is not a dead end. Polls while shown, as a new one lands a moment after it is asked.
 */
export function CapturedVerificationLink() {
  const config = useQuery(configQuery)
  const capture = config.data?.transport === 'capture'
  const message = useQuery({ ...capturedVerificationQuery, enabled: capture, refetchInterval: 3_000 })
  if (!capture) return null
  return (
    <Text size="sm" mb="xs">
      This server captures mail instead of sending it, so the email waits in your Mailbox.{' '}
      {message.data ? (
        <Anchor component={Link} to={`/mailbox/account/${message.data.id}`} underline="always">
          Open the verification email
        </Anchor>
      ) : (
        'Send one and a link to it appears here.'
      )}
    </Text>
  )
}
