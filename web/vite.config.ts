import { rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'
import { precompress } from '../scripts/precompress.js'

/**
 * Brotli and gzip copies of the built files, written next to them once vite has written the build
 * (scripts/precompress.ts): the server sends them by Accept-Encoding and never compresses per request.
 */
function precompressed(): Plugin {
  return {
    name: 'mailroom:precompress',
    apply: 'build',
    writeBundle: {
      order: 'post',
      async handler(options) {
        const dir = options.dir ?? ''
        try {
          await precompress(dir)
        } catch (err) {
          // index.html is what says the build is done (scripts/build-if-stale.ts): without the copies it is not.
          rmSync(path.join(dir, 'index.html'), { force: true })
          throw err
        }
      },
    },
  }
}

// The dashboard lives under /app/ on the API's own origin, so its paths never collide with API routes
// (GET /contacts is the API; /app/contacts is the page).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  plugins: [react(), precompressed()],
  resolve: {
    // Type-only imports of the server's zod schemas; `import type` is erased, so no server code is bundled.
    alias: { '@server': fileURLToPath(new URL('../src', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 800,
    rollupOptions: {
      output: {
        // React and the router change rarely: one cacheable vendor chunk apart from the app code. Mantine's components
        // go with the pages that use them, which keeps the first download under 250 kB gzipped (bench/README.md).
        manualChunks(id) {
          if (/node_modules\/(react|react-dom|scheduler|react-router)\//.test(id)) return 'react'
          // @mantine/dates (and dayjs) only where a date is picked: they stay out of the first download.
          if (/node_modules\/@mantine\/(hooks|notifications|store)\//.test(id)) return 'mantine'
          return undefined
        },
      },
    },
  },
  server: { proxy: { '^/(?!app/).*': 'http://127.0.0.1:3000' } },
})
