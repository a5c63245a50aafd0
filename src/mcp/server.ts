import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { MailroomApi } from './api.js'
import type { McpTool, ToolLimits } from './tool.js'
import { campaignTools } from './tools/campaigns.js'
import { contactTools } from './tools/contacts.js'
import { domainTools } from './tools/domains.js'
import { insightTools } from './tools/insights.js'
import { messageTools } from './tools/messages.js'
import { segmentTools } from './tools/segments.js'
import { suppressionTools } from './tools/suppressions.js'
import { templateTools } from './tools/templates.js'
import { workflowTools } from './tools/workflows.js'

const mcpTools: readonly McpTool[] = [
  ...contactTools,
  ...messageTools,
  ...templateTools,
  ...segmentTools,
  ...campaignTools,
  ...workflowTools,
  ...domainTools,
  ...insightTools,
  ...suppressionTools,
]

export type McpOptions = {
  /** Offer only the tools that change nothing. */
  readOnly: boolean
  limits: ToolLimits
}

const instructions =
  'Mailroom is an email platform. These tools act on one project (the one the secret key belongs to): its ' +
  'contacts, transactional email, events, templates, segments, campaigns, workflows, sender domains, activity, ' +
  'analytics and suppressions. Tools that send to many people, send a campaign or delete something refuse until ' +
  'called with `confirm: true`: ask the user before setting it.'

function annotationsOf(tool: McpTool): ToolAnnotations {
  return {
    title: tool.title,
    readOnlyHint: tool.kind === 'read',
    destructiveHint: tool.kind === 'delete',
    idempotentHint: tool.kind !== 'write' || tool.idempotent === true,
    openWorldHint: tool.reachesPeople === true,
  }
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] }
}

async function callTool(
  tool: McpTool,
  api: MailroomApi,
  { confirm, ...args }: Record<string, unknown>,
  limits: ToolLimits,
): Promise<CallToolResult> {
  const reason = tool.needsConfirmation?.(args, limits)
  if (reason && confirm !== true) {
    return errorResult(
      `Not done: ${tool.name} needs "confirm": true because ${reason}. Ask the user, then call it again with ` +
        '"confirm": true. Nothing was changed.',
    )
  }
  const answer = await tool.run(api, args)
  const text = answer.body === undefined ? 'Done.' : JSON.stringify(answer.body, null, 2)
  if (answer.status >= 400) return errorResult(`Mailroom answered ${answer.status}: ${text}`)
  const isRecord = typeof answer.body === 'object' && answer.body !== null && !Array.isArray(answer.body)
  return {
    content: [{ type: 'text', text }],
    ...(isRecord ? { structuredContent: answer.body as Record<string, unknown> } : {}),
  }
}

/** An MCP server whose tools act through `api`; one per connection (stdio) or per request (`/mcp`). */
export function createMcpServer(api: MailroomApi, options: McpOptions): McpServer {
  const server = new McpServer({ name: 'mailroom', version: '1.0.0' }, { instructions })
  for (const tool of mcpTools) {
    if (options.readOnly && tool.kind !== 'read') continue
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: annotationsOf(tool) },
      (args: Record<string, unknown>) => callTool(tool, api, args, options.limits),
    )
  }
  return server
}
