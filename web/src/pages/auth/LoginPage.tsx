import { Anchor, Group } from '@mantine/core'
import { Link } from 'react-router'
import { AuthSwitch, CredentialsForm } from './CredentialsForm'

export function LoginPage() {
  return (
    <CredentialsForm
      title="Log in to your account"
      submitLabel="Log in"
      endpoint="/auth/login"
      then="/"
      extra={
        <Group justify="flex-end" mt={-8}>
          <Anchor component={Link} to="/forgot-password" size="sm">
            Forgot password?
          </Anchor>
        </Group>
      }
      footer={
        <>
          No account yet? <AuthSwitch to="/signup">Sign up</AuthSwitch>
        </>
      }
    />
  )
}
