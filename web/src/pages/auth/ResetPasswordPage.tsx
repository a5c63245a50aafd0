import { Alert, Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { resetPassword } from '../../api/auth'
import { ApiError } from '../../api/client'
import { ErrorAlert } from '../../components/states'
import { AuthFrame } from './AuthFrame'

/** The mailed reset link: a new password, checked by the server's policy, with its errors at the field. */
export function ResetPasswordPage() {
  const [params] = useSearchParams()
  const token = params.get('token') ?? ''
  const [password, setPassword] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mismatch, setMismatch] = useState(false)
  const queryClient = useQueryClient()
  const reset = useMutation({
    mutationFn: (newPassword: string) => resetPassword(token, newPassword),
    // Every other session of the account has ended; forget whoever this browser was.
    onSuccess: () => queryClient.clear(),
  })
  const error = reset.error instanceof ApiError ? reset.error : undefined
  const tokenProblem = error?.forField('token')
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    setMismatch(password !== repeat)
    if (password === repeat) reset.mutate(password)
  }
  const footer = (
    <Anchor component={Link} to="/forgot-password">
      Ask for a new link
    </Anchor>
  )
  if (reset.isSuccess)
    return (
      <AuthFrame title="Reset your password">
        <Stack>
          <Alert color="teal.9" variant="outline" title="Password changed" role="status">
            <Text size="sm">{reset.data.data.message}. Every other session of your account has been logged out.</Text>
          </Alert>
          <Button component={Link} to="/login">
            Log in with your new password
          </Button>
        </Stack>
      </AuthFrame>
    )
  return (
    <AuthFrame title="Choose a new password" footer={footer}>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {reset.isError && (!error || error.general || tokenProblem) && (
            <ErrorAlert
              error={tokenProblem ? new Error('This reset link is not valid. Ask for a new one.') : reset.error}
              title="The password was not changed"
            />
          )}
          <PasswordInput
            label="New password"
            autoComplete="new-password"
            required
            description="At least 8 characters, and not one of the most common passwords"
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={error?.forField('newPassword')}
            // Mantine's PasswordInput links its error (aria-describedby) but does not mark the input invalid.
            aria-invalid={Boolean(error?.forField('newPassword'))}
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(event) => setRepeat(event.currentTarget.value)}
            error={mismatch ? 'The two passwords differ' : undefined}
            aria-invalid={mismatch}
          />
          <Button type="submit" loading={reset.isPending}>
            Change password
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  )
}
