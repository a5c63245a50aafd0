import type { FastifyInstance } from 'fastify'

/**
 * Plunk's MCP client, like many HTTP libraries, sends `Content-Type: application/json` on every request, bodiless
 * DELETEs and POSTs included. Fastify's JSON parser refuses such an empty body; here it is no body at all, as it
 * would be without the header. Anything else (the size limit, malformed JSON, prototype poisoning) is refused as
 * before.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) done(null, undefined)
    else parseJson(request, body.toString(), done)
  })
}
