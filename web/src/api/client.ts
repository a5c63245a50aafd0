/** One field's problem, as the API's error body lists it (`error.errors[]`, a dot path such as `data.plan`). */
export type FieldError = { field: string; message: string; code?: string }

/** Every failed request: the API's message and field errors, or a network failure said plainly. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: FieldError[] = [],
    readonly requestId?: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** The message for one form field, if the API named it (field errors, or `details.field` of a syntax error). */
  forField(field: string): string | undefined {
    if (this.details.field === field) return this.message
    return this.fieldErrors.find((error) => error.field === field)?.message
  }

  /** Whether the message belongs to no single field and must be shown on its own. */
  get general(): boolean {
    return this.fieldErrors.length === 0 && typeof this.details.field !== 'string'
  }
}

type ErrorBody = {
  error?:
    | string
    | { code?: string; message?: string; errors?: FieldError[]; requestId?: string; details?: Record<string, unknown> }
}

async function toApiError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => undefined)) as ErrorBody | undefined
  const error = body?.error
  // A few create routes answer Plunk's plain `{error: "..."}`; every other route the standard body.
  if (typeof error === 'string') return new ApiError(response.status, 'ERROR', error)
  return new ApiError(
    response.status,
    error?.code ?? 'ERROR',
    error?.message ?? `The server answered ${response.status} ${response.statusText}`,
    error?.errors ?? [],
    error?.requestId,
    error?.details,
  )
}

/**
 * `body` is sent as JSON, or as multipart when it is FormData (file uploads; the browser sets the boundary).
 * `projectId` names the project of a project endpoint (X-Project-Id, beside the session cookie). It is an input of
 * each call rather than app state, so a request started for one project is answered for that project even when the
 * user has switched to another meanwhile. Account, auth and path-scoped (`/projects/:id/...`) calls send none.
 */
type Options = { method?: string; body?: unknown; signal?: AbortSignal; projectId?: string }

export async function request(
  path: string,
  { method = 'GET', body, signal, projectId }: Options = {},
): Promise<Response> {
  const headers: Record<string, string> = {}
  const form = body instanceof FormData
  if (body !== undefined && !form) headers['content-type'] = 'application/json'
  if (projectId) headers['x-project-id'] = projectId
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers,
      body: form ? body : body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal,
    })
  } catch (cause) {
    if (signal?.aborted) throw cause
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server. Check your connection and try again.')
  }
  if (!response.ok) throw await toApiError(response)
  return response
}

/** A JSON request; 204 answers resolve to undefined. */
export async function api<T>(path: string, options: Options = {}): Promise<T> {
  const response = await request(path, options)
  if (response.status === 204) return undefined as T
  return (await response.json()) as T
}

/** Query string from defined values only. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value))
  }
  const text = search.toString()
  return text ? `?${text}` : ''
}
