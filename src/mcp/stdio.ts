import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'
import { fetchApi } from './api.js'
import { createMcpServer } from './server.js'

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1')

const environment = z.object({
  MAILROOM_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:3000'),
  MAILROOM_SECRET_KEY: z.string().regex(/^sk_[0-9a-f]{64}$/, "expected the project's secret key (sk_…)"),
  MCP_READ_ONLY: booleanFlag.default(false),
  MCP_CONFIRM_RECIPIENTS: z.coerce.number().int().min(0).default(10),
})

/**
 * `mailroom mcp`: the MCP server over stdio for a desktop agent, acting on the Mailroom at MAILROOM_URL with the
 * project's secret key. Stdout carries the protocol only; problems go to stderr.
 */
export async function runStdioMcpServer(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const parsed = environment.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    console.error(`mailroom mcp: ${problems.join('; ')}`)
    process.exit(1)
  }
  const settings = parsed.data
  const server = createMcpServer(fetchApi(settings.MAILROOM_URL, settings.MAILROOM_SECRET_KEY), {
    readOnly: settings.MCP_READ_ONLY || argv.includes('--read-only'),
    limits: { confirmRecipientsAbove: settings.MCP_CONFIRM_RECIPIENTS },
  })
  await server.connect(new StdioServerTransport())
}
