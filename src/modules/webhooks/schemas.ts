import { z } from 'zod'
import { cursorPage, cursorPageQuery } from '../../http/pagination.js'
import { isoDateTime } from '../analytics/period.js'

const maxUrlLength = 2048
const maxEventTypes = 50

/** An exact event name, or a pattern where `*` stands for any run of characters. */
const eventTypePattern = z
  .string()
  .trim()
  .min(1, 'event types must not be empty')
  .max(255, 'event types must be at most 255 characters')
  .refine((value) => !/[\s\p{Cc}]/u.test(value), { error: 'event types must not contain spaces or control characters' })

const eventTypes = z
  .array(eventTypePattern)
  .min(1, 'name at least one event type, or "*" for every event')
  .max(maxEventTypes, `at most ${maxEventTypes} event types`)

/** Syntax only: the address rules (credentials, private addresses) are the service's, with the config in hand. */
const url = z
  .string()
  .trim()
  .min(1, 'url is required')
  .max(maxUrlLength, `url must be at most ${maxUrlLength} characters`)
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), {
    error: 'url must be an absolute http:// or https:// URL',
  })

export const webhookCreate = z.object({
  url,
  description: z.string().trim().max(500).default(''),
  eventTypes,
  enabled: z.boolean().default(true),
})
export type WebhookCreate = z.infer<typeof webhookCreate>

export const webhookUpdate = z.object({
  url: url.optional(),
  description: z.string().trim().max(500).optional(),
  eventTypes: eventTypes.optional(),
  /** true also clears an automatic disabling (`disabledReason`) and the failure streak. */
  enabled: z.boolean().optional(),
})
export type WebhookUpdate = z.infer<typeof webhookUpdate>

export const webhookIdParams = z.object({ id: z.uuid() })
export const webhookMessageParams = z.object({ id: z.uuid(), messageId: z.uuid() })

export const webhookView = z.object({
  id: z.uuid(),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(z.string()),
  enabled: z.boolean(),
  /** `failing` when Mailroom disabled it after failing for days; null otherwise. */
  disabledReason: z.string().nullable(),
  /** The first failed attempt since the last success; null while it answers 2xx. */
  failingSince: z.date().nullable(),
  /** Until when the secret before the last rotation still signs deliveries too. */
  previousSecretExpiresAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type WebhookView = z.infer<typeof webhookView>

/** Event types that match no event Mailroom emits nor any this project has tracked: allowed, but said. */
const warnings = z.array(z.string())

export const webhookSaved = webhookView.extend({ warnings })
export type WebhookSaved = z.infer<typeof webhookSaved>

/** The only answers that carry the secret: creation and rotation. */
export const webhookCreated = webhookSaved.extend({ secret: z.string() })
export type WebhookCreated = z.infer<typeof webhookCreated>

export const webhookSecretRotated = z.object({
  secret: z.string(),
  /** Until when the old secret keeps signing beside the new one. */
  previousSecretExpiresAt: z.date(),
})

export const webhookList = z.array(webhookView)

const webhookMessageStatus = z.enum(['PENDING', 'DELIVERED', 'FAILED'])

export const webhookMessageListQuery = cursorPageQuery.extend({ status: webhookMessageStatus.optional() })
export type WebhookMessageListQuery = z.infer<typeof webhookMessageListQuery>

export const webhookMessageView = z.object({
  /** The `webhook-id` header of every attempt. */
  id: z.uuid(),
  eventType: z.string(),
  eventId: z.uuid().nullable(),
  status: webhookMessageStatus,
  /** Attempts of the current round (since it was made, retried or replayed). */
  attemptCount: z.number().int(),
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: z.date().nullable(),
  lastAttemptAt: z.date().nullable(),
  createdAt: z.date(),
})
export type WebhookMessageView = z.infer<typeof webhookMessageView>

export const webhookMessagePage = cursorPage(webhookMessageView)

const webhookAttemptView = z.object({
  at: z.date(),
  succeeded: z.boolean(),
  /** null when no answer came (`error` says why). */
  responseStatus: z.number().int().nullable(),
  /** The first 1,000 characters of the answer. */
  responseBody: z.string(),
  error: z.string().nullable(),
  latencyMs: z.number().int(),
  url: z.string(),
})

export const webhookMessageDetail = webhookMessageView.extend({
  /** The JSON body every attempt sends. */
  payload: z.record(z.string(), z.unknown()),
  attempts: z.array(webhookAttemptView),
})
export type WebhookMessageDetail = z.infer<typeof webhookMessageDetail>

export const maxReplayDays = 7

export const webhookReplay = z.object({ from: isoDateTime, to: isoDateTime })
export type WebhookReplay = z.infer<typeof webhookReplay>

export const webhookReplayed = z.object({ replayed: z.number().int() })
