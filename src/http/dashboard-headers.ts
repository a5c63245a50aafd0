import type { FastifyHelmetOptions } from '@fastify/helmet'

/**
 * Security headers of the dashboard's responses (its shell, its files and its redirects). The API's JSON
 * answers keep their own headers. Every directive is listed here rather than taken from helmet's defaults, so
 * what the browser enforces can be read in one place.
 */
export const dashboardHeaders: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      // Vite builds every script into a file under /app/assets; the shell has no inline script.
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      // Mantine and CodeMirror add <style> elements at run time, and email previews carry inline styles.
      styleSrc: ["'self'", "'unsafe-inline'"],
      // The favicon and some icons are data: URIs; email previews (sandboxed srcdoc frames, which inherit this
      // policy) show the images an email links to, from wherever the sender put them.
      imgSrc: ["'self'", 'data:', 'https:', 'http:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  // For browsers without frame-ancestors.
  xFrameOptions: { action: 'deny' },
  // Dashboard URLs carry tokens (password reset, invitations): never send them to another site.
  referrerPolicy: { policy: 'no-referrer' },
  // HTTPS is the reverse proxy's business (many installs run on plain HTTP inside a network), and so is HSTS:
  // sent from here with includeSubDomains it would bind every host under the dashboard's name to HTTPS.
  strictTransportSecurity: false,
}
