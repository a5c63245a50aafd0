import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { type IncomingHttpHeaders, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import Fastify from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { precompress } from '../../scripts/precompress.js'
import type { App } from '../../src/http/app-type.js'
import { frameworkErrorOptions, registerErrorHandlers } from '../../src/http/errors.js'
import { registerDashboard } from '../../src/http/static.js'

/*
 * The dashboard's files as the build leaves them (scripts/precompress.ts writes the .br and .gz copies) and as the
 * server sends them, over real HTTP. A small build of its own, so this runs without web/dist: an app shell, a
 * hashed script big enough to compress, one too small to, and an image.
 */

const script = `export const pages = ${JSON.stringify(
  Array.from({ length: 400 }, (_, index) => ({ path: `/page-${index}`, title: `Page number ${index}` })),
)}\n`
const shell = `<!doctype html><html lang="en"><head><meta charset="UTF-8" /><title>Mailroom</title>
<script type="module" crossorigin src="/app/assets/index-Ab12Cd34.js"></script>
${'<link rel="modulepreload" crossorigin href="/app/assets/chunk-Ef56Gh78.js">\n'.repeat(12)}</head>
<body><div id="root"></div></body></html>\n`
const tinyScript = 'export const one = 1\n'
const image = randomBytes(2048)

type Answer = { status: number; headers: IncomingHttpHeaders; body: Buffer }

describe('the dashboard files, precompressed', () => {
  let dir: string
  let app: App
  let base: string

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mailroom-precompressed-'))
    mkdirSync(path.join(dir, 'assets'))
    writeFileSync(path.join(dir, 'index.html'), shell)
    writeFileSync(path.join(dir, 'assets/index-Ab12Cd34.js'), script)
    writeFileSync(path.join(dir, 'assets/tiny-Zz99Yy88.js'), tinyScript)
    writeFileSync(path.join(dir, 'assets/logo-Qq11Rr22.png'), image)
    await precompress(dir)

    // The server's error handling and the dashboard's routes, without the rest of the API.
    app = Fastify({ ...frameworkErrorOptions }).withTypeProvider<ZodTypeProvider>()
    registerErrorHandlers(app)
    await registerDashboard(app, dir)
    await app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await app?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** One request with node's own client, which neither asks for nor decodes any encoding by itself. */
  const fetchRaw = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
    new Promise<Answer>((resolve, reject) => {
      const outgoing = request(`${base}${url}`, { method, headers }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        )
        response.on('error', reject)
      })
      outgoing.on('error', reject)
      outgoing.end()
    })

  const browser = { 'accept-encoding': 'gzip, deflate, br, zstd' }
  const bytesOf = (file: string) => statSync(path.join(dir, file)).size

  it('writes brotli and gzip copies of what shrinks, and none of tiny files or images', () => {
    for (const file of ['index.html', 'assets/index-Ab12Cd34.js']) {
      expect(bytesOf(`${file}.br`), file).toBeLessThan(bytesOf(file) / 4)
      expect(bytesOf(`${file}.gz`), file).toBeLessThan(bytesOf(file) / 4)
      expect(brotliDecompressSync(readFileSync(path.join(dir, `${file}.br`))).toString()).toBe(
        readFileSync(path.join(dir, file), 'utf8'),
      )
    }
    for (const file of ['assets/tiny-Zz99Yy88.js', 'assets/logo-Qq11Rr22.png']) {
      expect(existsSync(path.join(dir, `${file}.br`)), file).toBe(false)
      expect(existsSync(path.join(dir, `${file}.gz`)), file).toBe(false)
    }
  })

  it('sends a browser the brotli copy of a hashed script, cached for a year', async () => {
    const response = await fetchRaw('/app/assets/index-Ab12Cd34.js', browser)
    expect(response.status).toBe(200)
    expect(response.headers['content-encoding']).toBe('br')
    expect(response.headers['content-type']).toBe('application/javascript; charset=utf-8')
    expect(response.headers['content-length']).toBe(String(bytesOf('assets/index-Ab12Cd34.js.br')))
    expect(response.headers.vary).toMatch(/accept-encoding/i)
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(brotliDecompressSync(response.body).toString()).toBe(script)
    // The dashboard's security headers stay on a compressed answer.
    expect(response.headers['content-security-policy']).toContain("default-src 'self'")
    expect(response.headers['x-content-type-options']).toBe('nosniff')
  })

  it('sends gzip to a client without brotli, and to one that refuses brotli with q=0', async () => {
    for (const accept of ['gzip, deflate', 'br;q=0, gzip', 'gzip;q=0.5, br;q=0']) {
      const response = await fetchRaw('/app/assets/index-Ab12Cd34.js', { 'accept-encoding': accept })
      expect(response.headers['content-encoding'], accept).toBe('gzip')
      expect(response.headers['content-length'], accept).toBe(String(bytesOf('assets/index-Ab12Cd34.js.gz')))
      expect(response.headers.vary, accept).toMatch(/accept-encoding/i)
      expect(gunzipSync(response.body).toString(), accept).toBe(script)
    }
  })

  it('sends the file itself without Accept-Encoding, or when every encoding it has is refused', async () => {
    const refusals: Record<string, string>[] = [
      {},
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'br;q=0, gzip;q=0' },
    ]
    for (const headers of refusals) {
      const response = await fetchRaw('/app/assets/index-Ab12Cd34.js', headers)
      const label = JSON.stringify(headers)
      expect(response.status, label).toBe(200)
      expect(response.headers['content-encoding'], label).toBeUndefined()
      expect(response.headers['content-length'], label).toBe(String(Buffer.byteLength(script)))
      // A shared cache must not hand this copy to a browser that takes brotli.
      expect(response.headers.vary, label).toMatch(/accept-encoding/i)
      expect(response.body.toString(), label).toBe(script)
    }
  })

  it('sends files without a smaller copy as they are, whatever the browser accepts', async () => {
    const tiny = await fetchRaw('/app/assets/tiny-Zz99Yy88.js', browser)
    expect(tiny.status).toBe(200)
    expect(tiny.headers['content-encoding']).toBeUndefined()
    expect(tiny.headers['content-type']).toBe('application/javascript; charset=utf-8')
    expect(tiny.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(tiny.body.toString()).toBe(tinyScript)
    const logo = await fetchRaw('/app/assets/logo-Qq11Rr22.png', browser)
    expect(logo.headers['content-encoding']).toBeUndefined()
    expect(logo.headers['content-type']).toBe('image/png')
    expect(logo.body.equals(image)).toBe(true)
  })

  it('sends the app shell compressed and never cached, for /app/ and for every page path', async () => {
    for (const url of ['/app/', '/app/login', '/app/contacts/5f0c2d3e-0000-4000-8000-000000000000']) {
      const response = await fetchRaw(url, browser)
      expect(response.status, url).toBe(200)
      expect(response.headers['content-encoding'], url).toBe('br')
      expect(response.headers['content-type'], url).toBe('text/html; charset=utf-8')
      expect(response.headers['cache-control'], url).toBe('no-cache')
      expect(response.headers.vary, url).toMatch(/accept-encoding/i)
      expect(response.headers['content-security-policy'], url).toContain("frame-ancestors 'none'")
      expect(brotliDecompressSync(response.body).toString(), url).toBe(shell)
    }
  })

  it('answers HEAD with the headers of the copy a GET would get, and no body', async () => {
    const response = await fetchRaw('/app/assets/index-Ab12Cd34.js', browser, 'HEAD')
    expect(response.status).toBe(200)
    expect(response.headers['content-encoding']).toBe('br')
    expect(response.headers['content-length']).toBe(String(bytesOf('assets/index-Ab12Cd34.js.br')))
    expect(response.body.length).toBe(0)
  })

  it('revalidates by ETag: 304 for the copy the client holds, the other copy in full', async () => {
    const first = await fetchRaw('/app/', browser)
    const etag = String(first.headers.etag)
    expect(etag).toMatch(/^W\/".+"$/)
    const again = await fetchRaw('/app/', { ...browser, 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.body.length).toBe(0)
    expect(again.headers['cache-control']).toBe('no-cache')
    // The gzip copy is another representation: its validator differs, so the brotli one does not match it.
    const gzip = await fetchRaw('/app/', { 'accept-encoding': 'gzip', 'if-none-match': etag })
    expect(gzip.status).toBe(200)
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gzip.headers.etag).not.toBe(etag)
  })

  it('answers a missing asset, and a compressed copy asked for by name, with the JSON 404', async () => {
    for (const url of ['/app/assets/missing-Ab12Cd34.js', '/app/assets/index-Ab12Cd34.js.br']) {
      const response = await fetchRaw(url, browser)
      expect(response.status, url).toBe(404)
      expect(response.headers['content-encoding'], url).toBeUndefined()
      expect(JSON.parse(response.body.toString()), url).toMatchObject({
        success: false,
        error: { code: 'NOT_FOUND', statusCode: 404 },
      })
    }
  })
})
