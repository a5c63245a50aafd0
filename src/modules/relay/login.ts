import { SmtpRefusal } from '../../mail/submission/handler.js'
import type { FailedLogins } from './failed-logins.js'

/** A project's secret key, as generated (projects/keys.ts); a public key or anything else is no password here. */
const secretKeyPattern = /^sk_[0-9a-f]{64}$/

/** Finds the project whose secret key this is (hashed lookup; never cached, so a rotated key fails at once). */
export type FindProjectBySecretKey = (key: string) => Promise<{ id: string } | undefined>

const invalidCredentials = () => new SmtpRefusal(535, '5.7.8 Authentication credentials invalid')

/**
 * AUTH PLAIN or LOGIN: the password is the project's secret key and the user name anything at all (`plunk`,
 * `mailroom`, an address), as Plunk's relay documents it. The password is never logged nor kept.
 */
export async function authenticateLogin(
  findProject: FindProjectBySecretKey,
  failedLogins: FailedLogins,
  login: { password: string; remoteAddress: string },
): Promise<{ projectId: string }> {
  const waitSeconds = failedLogins.blockedForSeconds(login.remoteAddress)
  if (waitSeconds !== undefined) {
    throw new SmtpRefusal(421, `4.7.0 Too many failed logins from this address; try again in ${waitSeconds} seconds`)
  }
  const project = secretKeyPattern.test(login.password) ? await findProject(login.password) : undefined
  if (!project) {
    await failedLogins.record(login.remoteAddress)
    throw invalidCredentials()
  }
  return { projectId: project.id }
}
