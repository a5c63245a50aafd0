/** Domain errors. Services throw these; `http/errors.ts` alone turns them into responses. */
const errorCodes = [
  'BAD_REQUEST',
  'INVALID_WEBHOOK_SIGNATURE',
  'TEMPLATE_SYNTAX_ERROR',
  'TEMPLATE_RENDER_ERROR',
  'INVALID_JSON',
  'INVALID_IDEMPOTENCY_KEY',
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'FORBIDDEN',
  'EMAIL_VERIFICATION_REQUIRED',
  'PROJECT_DISABLED',
  'PROJECT_SENDING_PAUSED',
  'BILLING_LIMIT_EXCEEDED',
  'SIGNUPS_DISABLED',
  'NOT_FOUND',
  'BILLING_NOT_ENABLED',
  'REQUEST_TIMEOUT',
  'CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_ERROR',
  'PRESEND_CHECK_FAILED',
  'RATE_LIMIT_EXCEEDED',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const

export type ErrorCode = (typeof errorCodes)[number]

export type FieldError = {
  field: string
  message: string
  code: string
  received?: string
}

export type AppErrorOptions = {
  details?: Record<string, unknown>
  errors?: FieldError[]
  suggestion?: string
  /** Answer with the spec's plain `{error: string}` body (segment, template and contact create). */
  plain?: boolean
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: AppErrorOptions = {},
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export function notFound(resource: string): AppError {
  return new AppError('NOT_FOUND', `${resource} not found`)
}

export function validationError(errors: FieldError[], message = 'Request validation failed'): AppError {
  return new AppError('VALIDATION_ERROR', message, { errors })
}
