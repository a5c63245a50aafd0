import { Button, Paper, Stack, Text, Title } from '@mantine/core'
import { useQueryClient } from '@tanstack/react-query'
import { meQuery } from '../../api/session'
import { ResendVerification } from './ResendVerification'

/**
 * Shown instead of a project's pages while the server requires a verified address (REQUIRE_EMAIL_VERIFICATION)
 * and the user has none: every project route would answer EMAIL_VERIFICATION_REQUIRED.
 */
export function VerifyEmailGate({ email }: { email: string }) {
  const queryClient = useQueryClient()
  return (
    <Paper withBorder p="lg" maw={640}>
      <Stack>
        <Title order={1} size="h2">
          Verify your email address
        </Title>
        <Text size="sm">
          This server asks every user to confirm their address before working on a project. Open the link in the email
          sent to {email}.
        </Text>
        <ResendVerification email={email} />
        <Button
          variant="default"
          style={{ alignSelf: 'flex-start' }}
          onClick={() => queryClient.invalidateQueries({ queryKey: meQuery.queryKey })}
        >
          I have verified my address
        </Button>
      </Stack>
    </Paper>
  )
}
