import { timingSafeEqual } from 'node:crypto'
import type { OAuth2Client } from 'arctic'
import { z } from 'zod'
import type { OAuthProviderConfig } from '../../config.js'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import type { App } from '../../http/app-type.js'
import { startSession } from '../auth/cookie.js'
import { fetchOAuthProfile, type OAuthProvider, oauthProviders, oauthScopes } from './profiles.js'
import { signInWithOAuth } from './service.js'

const flowCookieName = 'mailroom_oauth'
const flowLifetimeSeconds = 10 * 60
const providerParams = z.object({ provider: z.enum(oauthProviders) })
const callbackQuery = z.object({ code: z.string().min(1).max(2048), state: z.string().min(1).max(256) })

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * GitHub and Google sign-in: authorisation-code flow with state and PKCE (S256) through arctic's OAuth2Client,
 * which takes the endpoints as arguments, so they come from the config (tests run a local provider).
 */
export function registerOAuthRoutes(app: App, ctx: AppContext): void {
  const tags = ['auth']
  const limited = { auth: 'none' as const, rateLimit: { max: ctx.config.authRateLimitPerMinute, timeWindow: 60_000 } }

  function providerConfig(provider: OAuthProvider): OAuthProviderConfig {
    const config = ctx.config.oauth[provider]
    if (!config) throw new AppError('NOT_FOUND', `${provider} sign-in is not configured on this server`)
    return config
  }

  // arctic (with its crypto dependencies) loads with the first sign-in, not with every start.
  async function client(provider: OAuthProvider, config: OAuthProviderConfig): Promise<OAuth2Client> {
    const { OAuth2Client } = await import('arctic')
    return new OAuth2Client(
      config.clientId,
      config.clientSecret,
      `${ctx.config.publicUrl}/auth/oauth/${provider}/callback`,
    )
  }

  app.get(
    '/auth/oauth/:provider',
    { config: limited, schema: { tags, params: providerParams } },
    async (request, reply) => {
      const { provider } = request.params
      const config = providerConfig(provider)
      const { CodeChallengeMethod, generateCodeVerifier, generateState } = await import('arctic')
      const state = generateState()
      const codeVerifier = generateCodeVerifier()
      const url = (await client(provider, config)).createAuthorizationURLWithPKCE(
        config.authorizationUrl,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        oauthScopes[provider],
      )
      // State and verifier stay in this browser only: the callback must come back to the browser that started.
      reply.setCookie(flowCookieName, `${provider}.${state}.${codeVerifier}`, {
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.config.publicUrl.startsWith('https://'),
        path: '/auth/oauth',
        maxAge: flowLifetimeSeconds,
      })
      return reply.redirect(url.toString(), 302)
    },
  )

  app.get(
    '/auth/oauth/:provider/callback',
    { config: limited, schema: { tags, params: providerParams, querystring: callbackQuery } },
    async (request, reply) => {
      const { provider } = request.params
      const config = providerConfig(provider)
      const [cookieProvider, state, codeVerifier] = (request.cookies[flowCookieName] ?? '').split('.')
      reply.clearCookie(flowCookieName, { path: '/auth/oauth' })
      if (cookieProvider !== provider || !state || !codeVerifier || !sameText(state, request.query.state)) {
        throw new AppError('BAD_REQUEST', 'The sign-in state does not match; start the sign-in again')
      }
      let accessToken: string
      try {
        const tokens = await (await client(provider, config)).validateAuthorizationCode(
          config.tokenUrl,
          request.query.code,
          codeVerifier,
        )
        accessToken = tokens.accessToken()
      } catch (err) {
        request.log.warn({ err, provider }, 'OAuth code exchange failed')
        throw new AppError('BAD_REQUEST', `${provider} did not accept the sign-in; start it again`)
      }
      const profile = await fetchOAuthProfile(provider, config, accessToken).catch((err) => {
        request.log.warn({ err, provider }, 'OAuth profile fetch failed')
        throw new AppError('BAD_REQUEST', `Could not read your ${provider} profile; start the sign-in again`)
      })
      const userId = await signInWithOAuth(ctx, provider, profile)
      await startSession(ctx, reply, userId)
      return reply.redirect(`${ctx.config.publicUrl}/`, 302)
    },
  )
}
