import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import { ZodError } from 'zod'
import { isConnectionLost } from '../db/connection-loss.js'
import { AppError, type ErrorCode, type FieldError } from '../errors.js'
import { RequestValidationError, toFieldErrors } from './validation.js'

// Not `import ... from 'node:http'`: an ES module import of it reads every export of the module, and Node 24's
// WebSocket and friends among them load its bundled undici (~120 ms of every start).
const { STATUS_CODES } = process.getBuiltinModule('node:http')

/** The one place where a domain error code becomes an HTTP status. */
const statusByCode: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  INVALID_WEBHOOK_SIGNATURE: 400,
  TEMPLATE_SYNTAX_ERROR: 400,
  TEMPLATE_RENDER_ERROR: 400,
  INVALID_JSON: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  UNAUTHORIZED: 401,
  INVALID_API_KEY: 401,
  FORBIDDEN: 403,
  EMAIL_VERIFICATION_REQUIRED: 403,
  PROJECT_DISABLED: 403,
  PROJECT_SENDING_PAUSED: 403,
  // A monthly cap of the project is reached: retrying will not help before the next period or a higher cap.
  BILLING_LIMIT_EXCEEDED: 403,
  SIGNUPS_DISABLED: 403,
  NOT_FOUND: 404,
  // Plunk answers its Stripe routes with 404 when billing is off; kept for its clients.
  BILLING_NOT_ENABLED: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  // A campaign's content failed the pre-send check (campaigns/presend/send-gate.ts).
  PRESEND_CHECK_FAILED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
}

type ErrorBody = {
  success: false
  error: {
    code: ErrorCode
    message: string
    statusCode: number
    requestId: string
    errors?: FieldError[]
    details?: Record<string, unknown>
    suggestion?: string
  }
  timestamp: string
}

function errorBody(requestId: string, error: AppError): ErrorBody {
  const { errors, details, suggestion } = error.options
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      statusCode: statusByCode[error.code],
      requestId,
      ...(errors ? { errors } : {}),
      ...(details ? { details } : {}),
      ...(suggestion ? { suggestion } : {}),
    },
    timestamp: new Date().toISOString(),
  }
}

/** Fastify's own errors for malformed requests, as domain errors. Anything unrecognised is a 500. */
function fromFrameworkError(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('BAD_REQUEST', 'Malformed URL: a path segment is not valid percent-encoded UTF-8')
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('URI_TOO_LONG', 'A path segment is longer than this server accepts')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('INVALID_JSON', `Malformed JSON in request body: ${error.message}`)
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than this endpoint accepts')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type; send application/json')
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError('INVALID_JSON', `Malformed JSON in request body: ${error.message}`)
  }
  if (error.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large')
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('BAD_REQUEST', error.message)
  }
  return undefined
}

function fromValidationError(error: RequestValidationError): AppError {
  if (error.part === 'querystring' || error.part === 'headers') {
    return new AppError('BAD_REQUEST', `Invalid ${error.part === 'querystring' ? 'query parameters' : 'headers'}`, {
      errors: error.fieldErrors,
    })
  }
  const message = error.part === 'params' ? 'Invalid path parameters' : 'Request validation failed'
  return new AppError('VALIDATION_ERROR', message, { errors: error.fieldErrors })
}

/** The database is away (a restart, a dropped connection): the same request may succeed in a moment. */
const databaseUnavailable = new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; try again shortly')

function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error
  if (error instanceof RequestValidationError) return fromValidationError(error)
  if (error instanceof ZodError)
    return new AppError('VALIDATION_ERROR', 'Validation failed', { errors: toFieldErrors(error.issues) })
  // Before the framework's codes: a lost connection carries a code too (57P01, ECONNREFUSED).
  if (isConnectionLost(error)) return databaseUnavailable
  if (error instanceof Error && ('code' in error || 'statusCode' in error))
    return fromFrameworkError(error as FastifyError)
  return undefined
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const status = statusByCode[error.code]
  // Router errors skip the onRequest hooks that set it on every other answer.
  reply.header('x-request-id', request.id)
  if (error.options.plain) return reply.code(status).send({ error: error.message })
  return reply.code(status).send(errorBody(request.id, error))
}

function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error)
  if (appError) {
    if (statusByCode[appError.code] >= 500) request.log.error({ err: error }, appError.message)
    return sendError(request, reply, appError)
  }
  // Unknown failures may carry SQL or internals in their message: log them, answer with a fixed text.
  request.log.error({ err: error }, 'unexpected error')
  return sendError(request, reply, new AppError('INTERNAL_ERROR', 'An unexpected error occurred'))
}

/** What node's HTTP parser refuses before fastify sees a request (fastify's own answer has another shape). */
function fromClientError(error: NodeJS.ErrnoException): AppError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('REQUEST_TIMEOUT', 'The request took too long')
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new AppError('HEADERS_TOO_LARGE', 'Request headers are larger than this server accepts')
  return new AppError('BAD_REQUEST', 'Malformed HTTP request')
}

function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  if (socket.writable) {
    const appError = fromClientError(error)
    const status = statusByCode[appError.code]
    const requestId = randomUUID()
    const body = JSON.stringify(errorBody(requestId, appError))
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(error)
}

/**
 * Fastify options that route the framework's own early refusals (a URL that does not decode, a path parameter
 * over the router's limit, a request node cannot parse) through the standard error body.
 */
export const frameworkErrorOptions = {
  frameworkErrors: handleError,
  clientErrorHandler: answerClientError,
} satisfies Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'>

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler(handleError)
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]?.slice(0, 200)} not found`),
    ),
  )
}
