import { Anchor, Button, PasswordInput, Stack, TextInput } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, type ReactNode, useState } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { type CredentialsEndpoint, submitCredentials } from '../../api/auth'
import { ApiError } from '../../api/client'
import { meQuery } from '../../api/session'
import type { Credentials } from '../../api/types'
import { ErrorAlert } from '../../components/states'
import { AuthFrame } from './AuthFrame'

type Props = {
  title: string
  submitLabel: string
  endpoint: CredentialsEndpoint
  passwordHint?: string
  /** Where to go after success when the URL names no `next`. */
  then: string
  footer: ReactNode
  /** Shown under the password field (the login page's "Forgot password?"). */
  extra?: ReactNode
}

/** Only paths inside the dashboard: `next` comes from the URL and must not send users elsewhere. */
function safeNext(next: string | null, fallback: string): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : fallback
}

export function CredentialsForm({ title, submitLabel, endpoint, passwordHint, then, footer, extra }: Props) {
  const [params] = useSearchParams()
  // An invitation link leads here with its token and address: the account joins the project in the same request.
  const invitation = params.get('invitation') ?? undefined
  const [email, setEmail] = useState(params.get('email') ?? '')
  const [password, setPassword] = useState('')
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const submit = useMutation({
    mutationFn: (body: Credentials) => submitCredentials(endpoint, body),
    onSuccess: (user) => {
      queryClient.clear()
      queryClient.setQueryData(meQuery.queryKey, user)
      navigate(safeNext(params.get('next'), then), { replace: true })
    },
  })
  const error = submit.error instanceof ApiError ? submit.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    submit.mutate({ email, password, invitation })
  }

  return (
    <AuthFrame title={title} footer={footer}>
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
            // Mantine's PasswordInput links its error (aria-describedby) but does not mark the input invalid.
            aria-invalid={Boolean(error?.forField('password'))}
          />
          {extra}
          <Button type="submit" loading={submit.isPending}>
            {submitLabel}
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  )
}

/** A link to the other credentials page that keeps the query (an invitation, `next`) of this one. */
export function AuthSwitch({ to, children }: { to: string; children: ReactNode }) {
  const [params] = useSearchParams()
  const search = params.toString()
  return (
    <Anchor component={Link} to={search ? `${to}?${search}` : to}>
      {children}
    </Anchor>
  )
}
