import { Alert, Button, Group, Text } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { requestVerification } from '../../api/auth'
import { accountMailbox } from '../../api/mailbox'
import { ErrorAlert } from '../../components/states'
import { CapturedVerificationLink } from './CapturedVerificationLink'

/** Mails a new verification link to the signed-in user; the API allows three an hour. */
export function ResendVerification({ email }: { email: string }) {
  const queryClient = useQueryClient()
  const resend = useMutation({
    mutationFn: requestVerification,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountMailbox.key }),
  })
  return (
    <Alert color="indigo.9" title="Verify your email address" variant="outline">
      <Text size="sm" mb="xs">
        {email} is not verified yet. The link in the verification email confirms that the address is yours.
      </Text>
      <CapturedVerificationLink />
      {resend.isError && <ErrorAlert error={resend.error} title="No email sent" />}
      <Group gap="sm">
        <Button size="xs" variant="default" loading={resend.isPending} onClick={() => resend.mutate()}>
          Send a verification email
        </Button>
        <Text size="sm" role="status">
          {resend.data?.data.message}
        </Text>
      </Group>
    </Alert>
  )
}
