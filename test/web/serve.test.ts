import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { ensureWebBuild } from './browser.js'

const assets = fileURLToPath(new URL('../../web/dist/assets', import.meta.url))

/** The built dashboard on the API's origin: files under /app/, the app shell for its routes, the API untouched. */
describe('serving the dashboard', () => {
  let server: TestServer

  beforeAll(async () => {
    await ensureWebBuild()
    server = await startTestServer({ worker: false })
  }, 180_000)
  afterAll(() => server.close())

  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers })

  it('answers the app shell, never cached, for / , /app and every page path under /app/', async () => {
    expect((await get('/')).headers.location).toBe('/app/')
    expect((await get('/app')).headers.location).toBe('/app/')
    for (const url of ['/app/', '/app/contacts', '/app/contacts/5f0c2d3e-0000-4000-8000-000000000000', '/app/x/y/z']) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(200)
      expect(response.headers['content-type']).toMatch(/^text\/html/)
      expect(response.headers['cache-control']).toBe('no-cache')
      expect(response.body).toContain('<div id="root"></div>')
      expect(response.body).toMatch(/<script type="module" crossorigin src="\/app\/assets\/index-[\w-]+\.js">/)
    }
  })

  it('sends a Content-Security-Policy, frame and referrer protection with every dashboard answer', async () => {
    const script = readdirSync(assets).find((file) => /^index-.*\.js$/.test(file))
    for (const url of ['/', '/app/', '/app/contacts', `/app/assets/${script}`, '/app/assets/missing.js']) {
      const { headers } = await get(url)
      const policy = String(headers['content-security-policy'])
      expect(policy, url).toContain("frame-ancestors 'none'")
      expect(policy, url).toContain("default-src 'self'")
      expect(policy, url).toContain("script-src 'self';")
      expect(policy, url).not.toContain('upgrade-insecure-requests')
      expect(headers['x-frame-options'], url).toBe('DENY')
      expect(headers['referrer-policy'], url).toBe('no-referrer')
      expect(headers['x-content-type-options'], url).toBe('nosniff')
      expect(headers['strict-transport-security'], url).toBeUndefined()
    }
  })

  it('serves the shell with no inline script, which the policy would block', async () => {
    const shell = (await get('/app/')).body
    for (const tag of shell.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="\/app\/assets\//)
  })

  it('keeps the dashboard headers off API answers', async () => {
    const response = await get('/config')
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-security-policy']).toBeUndefined()
  })

  it('serves the hashed bundles as immutable files', async () => {
    const script = readdirSync(assets).find((file) => /^index-.*\.js$/.test(file))
    const response = await get(`/app/assets/${script}`)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/javascript/)
    expect(response.headers['cache-control']).toContain('immutable')
    expect(response.body.length).toBeGreaterThan(1000)
  })

  it('answers a missing asset, and anything outside /app/, with the API JSON 404', async () => {
    for (const url of ['/app/assets/missing.js', '/contacts/a/b', '/nope', '/app/assets/../../package.json']) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(404)
      expect(response.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND', statusCode: 404 } })
    }
    const post = await server.app.inject({ method: 'POST', url: '/app/contacts' })
    expect(post.statusCode).toBe(404)
    expect(post.json().error.code).toBe('NOT_FOUND')
  })

  it('leaves API routes to the API: GET /contacts is JSON, not the app shell', async () => {
    const response = await get('/contacts', { accept: 'text/html' })
    expect(response.statusCode).toBe(401)
    expect(response.json().error.code).toBe('INVALID_API_KEY')
  })

  it('never serves a file outside the build, whatever the encoding of the path', async () => {
    for (const url of [
      '/app/%2e%2e/%2e%2e/package.json',
      '/app/..%2f..%2fpackage.json',
      '/app/assets/..%2f..%2f..%2fpackage.json',
    ]) {
      const response = await get(url)
      expect(response.body, url).not.toContain('"name": "mailroom"')
    }
  })
})
