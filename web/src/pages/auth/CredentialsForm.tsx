import { Anchor, Button, Container, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, type ReactNode, useState } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { ApiError, api } from '../../api/client'
import type { Credentials, User } from '../../api/types'
import { ErrorAlert } from '../../components/states'

type Props = {
  title: string
  submitLabel: string
  endpoint: '/auth/login' | '/auth/signup'
  passwordHint?: string
  /** Where to go after success when the URL names no `next`. */
  then: string
  footer: ReactNode
}

export function CredentialsForm({ title, submitLabel, endpoint, passwordHint, then, footer }: Props) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const queryClient = useQueryClient()
  const submit = useMutation({
    mutationFn: (body: Credentials) => api<User>(endpoint, { method: 'POST', body }),
    onSuccess: (user) => {
      queryClient.clear()
      queryClient.setQueryData(['me'], user)
      const next = params.get('next')
      // Only paths inside the dashboard: `next` comes from the URL and must not send users elsewhere.
      navigate(next?.startsWith('/') && !next.startsWith('//') ? next : then, { replace: true })
    },
  })
  const error = submit.error instanceof ApiError ? submit.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    submit.mutate({ email, password })
  }

  return (
    <Container size={420} py={80} component="main">
      <Title order={1} ta="center" mb="xs">
        Mailroom
      </Title>
      <Text ta="center" c="dimmed" mb="lg">
        {title}
      </Text>
      <Paper withBorder p="lg" radius="md">
        <form onSubmit={onSubmit} noValidate>
          <Stack>
            {submit.isError && (!error || error.general) && (
              <ErrorAlert error={submit.error} title={`${submitLabel} failed`} />
            )}
            <TextInput
              label="Email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              error={error?.forField('email')}
            />
            <PasswordInput
              label="Password"
              autoComplete={endpoint === '/auth/signup' ? 'new-password' : 'current-password'}
              required
              description={passwordHint}
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
              error={error?.forField('password')}
            />
            <Button type="submit" loading={submit.isPending}>
              {submitLabel}
            </Button>
          </Stack>
        </form>
      </Paper>
      <Text ta="center" size="sm" mt="md">
        {footer}
      </Text>
    </Container>
  )
}

export function AuthSwitch({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Anchor component={Link} to={to}>
      {children}
    </Anchor>
  )
}
