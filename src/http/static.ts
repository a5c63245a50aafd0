import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import helmet from '@fastify/helmet'
import fastifyStatic from '@fastify/static'
import type { FastifyReply } from 'fastify'
import { notFound } from '../errors.js'
import type { App } from './app-type.js'
import { dashboardHeaders } from './dashboard-headers.js'

/** Where the dashboard is served; under a prefix so its pages never shadow API routes such as GET /contacts. */
const dashboardPath = '/app/'

/** `npm run build` writes the dashboard here (vite's outDir); the same path from src/http and dist/http. */
const defaultWebRoot = fileURLToPath(new URL('../../web/dist', import.meta.url))

/**
 * Serves the built dashboard on the API's origin: its files under /app/, and index.html for every other
 * /app/ path (the single-page app routes in the browser). Paths outside /app/ keep the API's JSON 404.
 * Without a build (running from the sources) the dashboard routes answer a 404 that says how to build it.
 */
export async function registerDashboard(app: App, root = defaultWebRoot): Promise<void> {
  // Its own plugin scope, so the security headers go on the dashboard's answers only.
  await app.register(async (scope) => serveDashboard(scope, root))
}

async function serveDashboard(app: App, root: string): Promise<void> {
  await app.register(helmet, dashboardHeaders)
  const built = existsSync(`${root}/index.html`)
  // Only files present at start are served, so a request path never reaches the file system unchecked. The build's
  // brotli and gzip copies (scripts/precompress.ts) are not asked for by name: Accept-Encoding picks them.
  const files = built
    ? new Set(
        readdirSync(root, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile() && !/\.(br|gz)$/.test(entry.name))
          .map((entry) => `${entry.parentPath.slice(root.length + 1)}/${entry.name}`.replace(/^\//, '')),
      )
    : new Set<string>()
  // preCompressed: brotli, else gzip, else the file itself, as the request's Accept-Encoding allows (q=0 refuses
  // one), with `Vary: Accept-Encoding`; a file without a smaller copy is sent as it is.
  if (built) await app.register(fastifyStatic, { root, serve: false, preCompressed: true })

  const sendIndex = (reply: FastifyReply) =>
    // The shell names the hashed bundles of the current build, so it is never cached.
    reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false })

  const route = { config: { auth: 'none' as const }, schema: { hide: true } }
  app.get('/', route, async (_request, reply) => reply.redirect(dashboardPath))
  app.get('/app', route, async (_request, reply) => reply.redirect(dashboardPath))
  app.get('/app/*', route, async (request, reply) => {
    if (!built) {
      throw notFound('Dashboard (run "npm run build" to build it)')
    }
    // find-my-way has already percent-decoded the wildcard.
    const file = (request.params as { '*': string })['*']
    if (files.has(file) && file !== 'index.html') {
      // Vite names assets by content hash: they never change under one name.
      const immutable = file.startsWith('assets/')
      return reply.sendFile(file, { cacheControl: true, immutable, maxAge: immutable ? '365d' : 0 })
    }
    if (file.startsWith('assets/')) throw notFound('File')
    return sendIndex(reply)
  })
}
