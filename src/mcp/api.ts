import type { App } from '../http/app-type.js'

/**
 * How a tool reaches Mailroom: through its HTTP API, with the caller's secret key. Every tool call is then one or
 * two ordinary API requests, so it gets the same validation, project scoping, limits and error bodies as any other
 * client (docs/decisions/0020).
 */
type ApiRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  query?: Record<string, string | number | boolean | undefined>
  body?: unknown
}

/** The status and the parsed JSON body (undefined for an empty one, as a 204 has). */
export type ApiAnswer = { status: number; body: unknown }

export type MailroomApi = (request: ApiRequest) => Promise<ApiAnswer>

function pathWithQuery({ path, query }: ApiRequest): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) search.set(name, String(value))
  }
  const text = search.toString()
  return text ? `${path}?${text}` : path
}

function parseBody(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** For `mailroom mcp` (stdio): a Mailroom server at `baseUrl`, anywhere the agent's machine can reach. */
export function fetchApi(baseUrl: string, secretKey: string): MailroomApi {
  const base = baseUrl.replace(/\/+$/, '')
  return async (request) => {
    const hasBody = request.body !== undefined
    const response = await fetch(`${base}${pathWithQuery(request)}`, {
      method: request.method,
      headers: {
        authorization: `Bearer ${secretKey}`,
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
      },
      body: hasBody ? JSON.stringify(request.body) : undefined,
      signal: AbortSignal.timeout(30_000),
    }).catch((error: unknown) => {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)
      throw new Error(`Could not reach Mailroom at ${base}: ${cause}`)
    })
    return { status: response.status, body: parseBody(await response.text()) }
  }
}

/** For `/mcp`: the same server, in process, with the Authorization header the `/mcp` request came with. */
export function injectApi(app: App, authorization: string): MailroomApi {
  return async (request) => {
    const hasBody = request.body !== undefined
    const response = await app.inject({
      method: request.method,
      url: pathWithQuery(request),
      headers: { authorization, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
      payload: hasBody ? JSON.stringify(request.body) : undefined,
    })
    return { status: response.statusCode, body: parseBody(response.body) }
  }
}
