import { z } from 'zod'
import { placeholderPattern } from './placeholders.js'

const webhookMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type WebhookMethod = (typeof webhookMethods)[number]

const maxUrlLength = 2048

/** The scheme must be typed out, so a placeholder can never choose `file:` or `gopher:`. */
export const staticSchemePattern = /^https?:\/\//i

/** Headers that frame the message or address the connection: ours to set, not the step's. */
const reservedHeaders = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
])

/** RFC 9110 token: a header name cannot be a placeholder or carry spaces. */
const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

const url = z
  .string({ error: 'url must be a string' })
  .min(1, 'url is required')
  .max(maxUrlLength, `url must be at most ${maxUrlLength} characters`)
  .refine((value) => staticSchemePattern.test(value), {
    error: 'url must start with http:// or https:// (the scheme cannot be a placeholder)',
    abort: true,
  })
  // With every placeholder standing in for a plain word, the URL must parse; catches `https://` alone.
  .refine((value) => URL.canParse(value.replace(placeholderPattern, 'placeholder')), {
    error: 'url is not a valid URL',
  })

const method = z
  .enum(webhookMethods, { error: `method must be one of ${webhookMethods.join(', ')} (not a placeholder)` })
  .default('POST')

const headers = z
  .record(z.string(), z.string({ error: 'header values must be strings' }), {
    error: (issue) =>
      issue.code === 'invalid_type' ? 'headers must be an object of header names to string values' : undefined,
  })
  .superRefine((value, ctx) => {
    for (const name of Object.keys(value)) {
      const message = !headerNamePattern.test(name)
        ? 'header names must be plain header tokens (no placeholders or spaces)'
        : reservedHeaders.has(name.toLowerCase())
          ? 'this header is set by Mailroom itself'
          : undefined
      if (message) ctx.addIssue({ code: 'custom', path: [name], message, input: name })
    }
  })
  .optional()

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

function isJsonValue(value: unknown): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (Array.isArray(value)) return value.every(isJsonValue)
  if (typeof value !== 'object') return false
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  return Object.values(value).every(isJsonValue)
}

/** A WEBHOOK step's configuration, checked when the workflow is saved. */
export const webhookStepConfig = z.object({
  url,
  method,
  headers,
  /** Replaces the default payload when present (null counts as absent); placeholders fill its strings. */
  body: z.custom<JsonValue>(isJsonValue, { error: 'body must be JSON' }).optional(),
})

export type WebhookStepConfig = z.infer<typeof webhookStepConfig>
export type WebhookStepConfigInput = z.input<typeof webhookStepConfig>
