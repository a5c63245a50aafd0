import { Alert, Anchor, Stack, Text } from '@mantine/core'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useSearchParams } from 'react-router'
import { emailVerificationQuery } from '../../api/auth'
import { everyProjectScope } from '../../api/keys'
import { meQuery } from '../../api/session'
import { ErrorAlert, Loading } from '../../components/states'
import { AuthFrame } from './AuthFrame'
import { ResendVerification } from './ResendVerification'

/** The mailed verification link: POSTs its token once and says what happened. */
export function VerifyEmailPage() {
  const [params] = useSearchParams()
  const token = params.get('token') ?? ''
  const queryClient = useQueryClient()
  const me = useQuery(meQuery)
  const verify = useQuery({
    ...emailVerificationQuery(token, async () => {
      // Project pages answered 403 while the address was unverified (REQUIRE_EMAIL_VERIFICATION); drop those
      // answers, or the dashboard would show them again from the cache instead of asking.
      queryClient.removeQueries({ queryKey: everyProjectScope })
      // The page's first question for the user may still be on its way, answered before the address was verified:
      // an invalidation would only wait for that answer, so it is cancelled and asked again.
      await queryClient.cancelQueries({ queryKey: meQuery.queryKey })
      await queryClient.invalidateQueries({ queryKey: meQuery.queryKey })
    }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
  })
  const user = me.data
  return (
    <AuthFrame title="Email verification">
      <Stack>
        {verify.isPending && <Loading label="Verifying your email address" />}
        {verify.isSuccess && (
          <Alert color="teal.9" variant="outline" title="Email verified" role="status">
            <Text size="sm">{verify.data.data.message}.</Text>
          </Alert>
        )}
        {verify.isError && <ErrorAlert error={verify.error} title="This link did not work" />}
        {verify.isError && user && !user.emailVerified && <ResendVerification email={user.email} />}
        {verify.isError && me.isSuccess && !user && <Text size="sm">Log in to ask for a new verification link.</Text>}
        <Anchor component={Link} to={user ? '/' : '/login'}>
          {user ? 'Go to the dashboard' : 'Log in'}
        </Anchor>
      </Stack>
    </AuthFrame>
  )
}
