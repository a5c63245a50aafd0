import { z } from 'zod'
import type { OAuthProviderConfig } from '../../config.js'

export const oauthProviders = ['github', 'google'] as const
export type OAuthProvider = (typeof oauthProviders)[number]

/** Who signed in, as the provider vouches: `email` is set only when the provider says the address is verified. */
export type OAuthProfile = { accountId: string; email: string | undefined }

export const oauthScopes: Record<OAuthProvider, string[]> = {
  github: ['read:user', 'user:email'],
  google: ['openid', 'email'],
}

const githubUser = z.object({ id: z.union([z.number(), z.string()]) })
const githubEmails = z.array(z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }))
const googleUser = z.object({ sub: z.string(), email: z.string().optional(), email_verified: z.boolean().optional() })

async function getJson(url: string, accessToken: string): Promise<unknown> {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': 'Mailroom' },
    signal: AbortSignal.timeout(10_000),
  })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return response.json()
}

/**
 * GitHub's `/user` email is whatever the user made public and says nothing of verification, so the address
 * comes from `/user/emails`: the primary one if verified, else none.
 */
async function githubProfile(config: OAuthProviderConfig, accessToken: string): Promise<OAuthProfile> {
  const user = githubUser.parse(await getJson(config.userUrl, accessToken))
  const emails = config.emailsUrl ? githubEmails.parse(await getJson(config.emailsUrl, accessToken)) : []
  const primary = emails.find((entry) => entry.primary && entry.verified)
  return { accountId: String(user.id), email: primary?.email }
}

async function googleProfile(config: OAuthProviderConfig, accessToken: string): Promise<OAuthProfile> {
  const user = googleUser.parse(await getJson(config.userUrl, accessToken))
  return { accountId: user.sub, email: user.email_verified === true ? user.email : undefined }
}

export function fetchOAuthProfile(
  provider: OAuthProvider,
  config: OAuthProviderConfig,
  accessToken: string,
): Promise<OAuthProfile> {
  return provider === 'github' ? githubProfile(config, accessToken) : googleProfile(config, accessToken)
}
