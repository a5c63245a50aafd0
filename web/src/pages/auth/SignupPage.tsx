import { AuthSwitch, CredentialsForm } from './CredentialsForm'

export function SignupPage() {
  return (
    <CredentialsForm
      title="Create your account"
      submitLabel="Sign up"
      endpoint="/auth/signup"
      passwordHint="At least 8 characters, and not one of the most common passwords"
      then="/projects/new"
      footer={
        <>
          Already have an account? <AuthSwitch to="/login">Log in</AuthSwitch>
        </>
      }
    />
  )
}
