import { AuthSwitch, CredentialsForm } from './CredentialsForm'

export function LoginPage() {
  return (
    <CredentialsForm
      title="Log in to your account"
      submitLabel="Log in"
      endpoint="/auth/login"
      then="/"
      footer={
        <>
          No account yet? <AuthSwitch to="/signup">Sign up</AuthSwitch>
        </>
      }
    />
  )
}
