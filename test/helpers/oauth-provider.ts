import { createHash, randomBytes } from 'node:crypto'
import Fastify from 'fastify'
import type { OAuthProviderConfig } from '../../src/config.js'

/** The user the provider signs in next, as GitHub (`/user`, `/user/emails`) and Google (`/userinfo`) show them. */
type ProviderUser = { id: string; email: string; verified: boolean }

type Grant = { user: ProviderUser; challenge: string; redirectUri: string }

export type OAuthProviderServer = {
  url: string
  /** The endpoints of this provider, as Mailroom's config takes them. */
  config(clientId: string, clientSecret: string): OAuthProviderConfig
  /** Whom the next /authorize approves. */
  signInAs(user: ProviderUser): void
  /** Token requests seen, and why each failed (empty when it succeeded). */
  tokenRequests: string[]
  close(): Promise<void>
}

const base64url = (bytes: Buffer) => bytes.toString('base64url')

/**
 * A tiny OAuth 2.0 provider over real HTTP: /authorize approves at once and redirects with a code, /token checks
 * the client's Basic credentials, the code, the redirect URI and the PKCE verifier against the S256 challenge.
 */
export async function startOAuthProvider(clientId: string, clientSecret: string): Promise<OAuthProviderServer> {
  const app = Fastify()
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  )
  const grants = new Map<string, Grant>()
  const tokens = new Map<string, ProviderUser>()
  const tokenRequests: string[] = []
  let next: ProviderUser | undefined

  app.get('/authorize', async (request, reply) => {
    const query = request.query as Record<string, string>
    if (!next || query.client_id !== clientId || query.code_challenge_method !== 'S256' || !query.code_challenge) {
      return reply.code(400).send({ error: 'invalid_request' })
    }
    const code = base64url(randomBytes(16))
    grants.set(code, { user: next, challenge: query.code_challenge, redirectUri: query.redirect_uri ?? '' })
    const target = new URL(query.redirect_uri ?? '')
    target.searchParams.set('code', code)
    target.searchParams.set('state', query.state ?? '')
    return reply.redirect(target.toString(), 302)
  })

  app.post('/token', async (request, reply) => {
    const body = request.body as Record<string, string>
    const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`
    const grant = grants.get(body.code ?? '')
    const verifierHash = base64url(
      createHash('sha256')
        .update(body.code_verifier ?? '')
        .digest(),
    )
    const problem =
      request.headers.authorization !== expected
        ? 'client'
        : !grant
          ? 'code'
          : grant.redirectUri !== body.redirect_uri
            ? 'redirect_uri'
            : grant.challenge !== verifierHash
              ? 'code_verifier'
              : ''
    tokenRequests.push(problem)
    if (problem || !grant) return reply.code(400).send({ error: 'invalid_grant', error_description: problem })
    grants.delete(body.code ?? '')
    const accessToken = base64url(randomBytes(16))
    tokens.set(accessToken, grant.user)
    return { access_token: accessToken, token_type: 'bearer', scope: 'user:email' }
  })

  const userOf = (authorization: string | undefined) => tokens.get(authorization?.replace(/^Bearer /, '') ?? '')
  app.get('/user', async (request, reply) => {
    const user = userOf(request.headers.authorization)
    return user ? { id: Number(user.id), login: 'someone', email: null } : reply.code(401).send({})
  })
  app.get('/user/emails', async (request, reply) => {
    const user = userOf(request.headers.authorization)
    return user ? [{ email: user.email, primary: true, verified: user.verified }] : reply.code(401).send({})
  })
  app.get('/userinfo', async (request, reply) => {
    const user = userOf(request.headers.authorization)
    return user ? { sub: user.id, email: user.email, email_verified: user.verified } : reply.code(401).send({})
  })

  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return {
    url,
    config: (id, secret) => ({
      clientId: id,
      clientSecret: secret,
      authorizationUrl: `${url}/authorize`,
      tokenUrl: `${url}/token`,
      userUrl: `${url}/user`,
      emailsUrl: `${url}/user/emails`,
    }),
    signInAs(user) {
      next = user
    },
    tokenRequests,
    close: () => app.close(),
  }
}
