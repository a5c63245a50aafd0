import { z } from 'zod'
import type { AppContext } from '../context.js'
import type { App } from '../http/app-type.js'
import { injectApi } from './api.js'

// The MCP SDK and the tools load with the first request (~300 ms of every start otherwise, for a route most
// instances never see).
const loadMcp = () => Promise.all([import('./server.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')])

const mcpQuery = z.object({
  /** `/mcp?readOnly=true`: a client configured with this URL gets only the read tools, whatever the server allows. */
  readOnly: z.enum(['true', 'false']).optional(),
})

/**
 * Mailroom's MCP server over Streamable HTTP, on the API's port, for the project whose secret key the request
 * carries. Stateless: each POST gets its own server and transport and a JSON answer, so any API process behind a
 * load balancer can answer any request, and nothing is kept between them.
 */
export function registerMcpRoute(app: App, ctx: AppContext): void {
  const config = { auth: 'secret' as const }
  const schema = { hide: true, querystring: mcpQuery }

  app.post('/mcp', { config, schema }, async (request, reply) => {
    const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadMcp()
    const server = createMcpServer(injectApi(app, request.headers.authorization ?? ''), {
      readOnly: ctx.config.mcp.readOnly || request.query.readOnly === 'true',
      limits: { confirmRecipientsAbove: ctx.config.mcp.confirmRecipientsAbove },
    })
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    reply.hijack()
    reply.raw.on('close', () => void server.close())
    await server.connect(transport)
    await transport.handleRequest(request.raw, reply.raw, request.body)
  })

  // No sessions, so no stream for server-initiated messages to open (GET) or session to end (DELETE).
  const notAllowed = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: use POST' }, id: null }
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config,
      schema: { hide: true },
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(notAllowed),
    })
  }
}
