import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { acceptInvitation, invitationQuery } from '../../api/auth'
import { query } from '../../api/client'
import { projectsQuery } from '../../api/projects'
import { meQuery, rememberProjectId } from '../../api/session'
import type { Invitation } from '../../api/types'
import { ErrorAlert, Loading } from '../../components/states'
import { AuthFrame } from './AuthFrame'

/**
 * The mailed invitation link: shows the project, then accepts it for a signed-in user, or leads to signup or login
 * carrying the token, which joins the project in the same request.
 */
export function InvitationPage() {
  const [params] = useSearchParams()
  const token = params.get('token') ?? ''
  const me = useQuery(meQuery)
  const invitation = useQuery({ ...invitationQuery(token), retry: false })
  return (
    <AuthFrame title="Team invitation">
      {invitation.isPending || me.isPending ? (
        <Loading label="Reading the invitation" />
      ) : invitation.isError ? (
        <Stack>
          <ErrorAlert error={invitation.error} title="This invitation cannot be used" />
          <Text size="sm">Ask the project's administrator to invite you again.</Text>
          <Anchor component={Link} to="/">
            Go to the dashboard
          </Anchor>
        </Stack>
      ) : (
        <Stack>
          <Text>
            {invitation.data.invitedBy ?? 'A project administrator'} invited <strong>{invitation.data.email}</strong> to
            the project <strong>{invitation.data.projectName}</strong> as {invitation.data.role.toLowerCase()}.
          </Text>
          {me.data ? (
            <Accept token={token} invitation={invitation.data} signedInAs={me.data.email} />
          ) : (
            <SignUpOrLogIn token={token} invitation={invitation.data} />
          )}
        </Stack>
      )}
    </AuthFrame>
  )
}

function Accept({ token, invitation, signedInAs }: { token: string; invitation: Invitation; signedInAs: string }) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const accept = useMutation({
    mutationFn: () => acceptInvitation(token),
    onSuccess: async (data) => {
      rememberProjectId(data.projectId)
      await queryClient.invalidateQueries({ queryKey: projectsQuery.queryKey })
      navigate('/', { replace: true })
    },
  })
  if (signedInAs !== invitation.email)
    return (
      <Alert color="indigo.9" variant="outline" title="Signed in with another address">
        <Text size="sm">
          You are signed in as {signedInAs}, but the invitation is for {invitation.email}. Log out and sign in with that
          address to accept it.
        </Text>
      </Alert>
    )
  return (
    <>
      {accept.isError && <ErrorAlert error={accept.error} title="Could not join the project" />}
      <Button loading={accept.isPending} onClick={() => accept.mutate()}>
        Join {invitation.projectName}
      </Button>
    </>
  )
}

function SignUpOrLogIn({ token, invitation }: { token: string; invitation: Invitation }) {
  // Signup and login accept the invitation themselves; the dashboard then opens on the project.
  const search = query({ invitation: token, email: invitation.email, next: '/' })
  const remember = () => rememberProjectId(invitation.projectId)
  return (
    <>
      <Text size="sm" c="dimmed">
        Create an account with {invitation.email}, or log in if you already have one, to join.
      </Text>
      <Group grow>
        <Button component={Link} to={`/signup${search}`} onClick={remember}>
          Sign up to join
        </Button>
        <Button component={Link} to={`/login${search}`} variant="default" onClick={remember}>
          Log in to join
        </Button>
      </Group>
    </>
  )
}
