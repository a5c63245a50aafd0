import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The dashboard lives under /app/ on the API's own origin, so its paths never collide with API routes
// (GET /contacts is the API; /app/contacts is the page).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  plugins: [react()],
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
        // React, the router and Mantine change rarely: one cacheable vendor chunk apart from the app code.
        manualChunks(id) {
          if (/node_modules\/(react|react-dom|scheduler|react-router)\//.test(id)) return 'react'
          // @mantine/dates (and dayjs) only where a date is picked: they stay out of the first download.
          if (/node_modules\/@mantine\/(core|hooks|notifications|store)\//.test(id)) return 'mantine'
          return undefined
        },
      },
    },
  },
  server: { proxy: { '^/(?!app/).*': 'http://127.0.0.1:3000' } },
})
