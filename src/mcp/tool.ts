import { z } from 'zod'
import type { ApiAnswer, MailroomApi } from './api.js'

/**
 * What a tool does to the project, from which its MCP annotations follow:
 * - `read` changes nothing (the only kind a read-only server offers);
 * - `write` creates or changes something;
 * - `delete` removes something or stops what cannot be resumed; it always needs `confirm: true`.
 */
type ToolKind = 'read' | 'write' | 'delete'

export type ToolLimits = {
  /** A send to more recipients than this needs `confirm: true`. */
  confirmRecipientsAbove: number
}

type ToolSpec<Shape extends z.ZodRawShape> = {
  name: string
  title: string
  /** For the agent: what the tool does and, for a write, what it changes. */
  description: string
  kind: ToolKind
  /** A write that, called again with the same arguments, changes nothing more (MCP's `idempotentHint`). */
  idempotent?: boolean
  /** The tool acts outside Mailroom: it sends email to people (MCP's `openWorldHint`). */
  reachesPeople?: boolean
  input: Shape
  /**
   * Why these arguments need `confirm: true`, or undefined when they do not. Every `delete` tool needs it; a write
   * declares when it does (a send to many recipients, a campaign send).
   */
  needsConfirmation?: (args: z.infer<z.ZodObject<Shape>>, limits: ToolLimits) => string | undefined
  run: (api: MailroomApi, args: z.infer<z.ZodObject<Shape>>) => Promise<ApiAnswer>
}

/** A tool with its argument types erased, as the server registers it; the SDK has checked them against `input`. */
export type McpTool = Omit<ToolSpec<z.ZodRawShape>, 'needsConfirmation' | 'run'> & {
  needsConfirmation?: (args: Record<string, unknown>, limits: ToolLimits) => string | undefined
  run: (api: MailroomApi, args: Record<string, unknown>) => Promise<ApiAnswer>
}

const confirmArgument = z
  .boolean()
  .optional()
  .describe('Set to true once the user has approved this action; without it the action is refused and nothing changes')

export function defineTool<Shape extends z.ZodRawShape>(spec: ToolSpec<Shape>): McpTool {
  type Args = z.infer<z.ZodObject<Shape>>
  const needsConfirmation =
    spec.kind === 'delete'
      ? () => 'it deletes data that cannot be brought back'
      : (spec.needsConfirmation as McpTool['needsConfirmation'])
  return {
    ...spec,
    input: needsConfirmation ? { ...spec.input, confirm: confirmArgument } : spec.input,
    needsConfirmation,
    run: (api, args) => spec.run(api, args as Args),
  }
}

/** Arguments of a list that pages by number. */
export const pageArgs = {
  page: z.number().int().min(1).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
}

/** Arguments of a list that pages by cursor. */
export const cursorArgs = {
  limit: z.number().int().min(1).max(100).optional(),
  cursor: z.string().max(500).optional().describe('The `cursor` of the previous page'),
}

/** A path segment from an argument (an id or an email address), so it can never change the route. */
export function segment(value: string): string {
  return encodeURIComponent(value)
}
