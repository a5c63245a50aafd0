import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core'
import { useMutation, useQuery } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { Link } from 'react-router'
import { requestPasswordReset } from '../../api/auth'
import { ApiError } from '../../api/client'
import { configQuery } from '../../api/config'
import { ErrorAlert } from '../../components/states'
import { AuthFrame } from './AuthFrame'

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('')
  const config = useQuery(configQuery)
  const request = useMutation({
    mutationFn: (address: string) => requestPasswordReset(address),
  })
  const error = request.error instanceof ApiError ? request.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    request.mutate(email)
  }
  return (
    <AuthFrame
      title="Reset your password"
      footer={
        <Anchor component={Link} to="/login">
          Back to log in
        </Anchor>
      }
    >
      {request.isSuccess ? (
        // The API answers the same whether or not the address has an account, and so does this page.
        <Alert color="teal.9" variant="outline" title="Check your email" role="status">
          <Text size="sm">{request.data.data.message}. The link works once and expires in one hour.</Text>
          {config.data?.transport === 'capture' && (
            // Logged out, no mailbox of the dashboard is open to them; the server's log is (README, capture mode).
            <Text size="sm" mt="xs">
              This server captures mail instead of sending it: the email is in your account's Mailbox once you are
              logged in, and its link is in the server's log (“account email captured”).
            </Text>
          )}
        </Alert>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">
              Enter the address of your account and we will mail you a link to choose a new password.
            </Text>
            {request.isError && (!error || error.general) && <ErrorAlert error={request.error} />}
            <TextInput
              label="Email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              error={error?.forField('email')}
            />
            <Button type="submit" loading={request.isPending}>
              Send reset link
            </Button>
          </Stack>
        </form>
      )}
    </AuthFrame>
  )
}
