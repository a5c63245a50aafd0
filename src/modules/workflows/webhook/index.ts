/** The WEBHOOK step's outbound HTTP: config validation, placeholder rendering and SSRF-guarded delivery. */
import type { WebhookRequest } from './render.js'
import type { SendWebhookOptions, WebhookResult } from './request.js'

export { checkAddress, describeRange as describeAddressRange } from './address-policy.js'
export { type WebhookStepConfigInput, webhookStepConfig } from './config.js'
export { WebhookError } from './errors.js'
export { defaultWebhookPayload } from './payload.js'
export type { WebhookVariables } from './placeholders.js'
export { renderWebhookRequest, type WebhookRequest } from './render.js'
export type { SendWebhookOptions, WebhookResult } from './request.js'
export { webhookResolverOf } from './resolver.js'

/**
 * `request.ts`'s sendWebhook, loaded with the first webhook: undici (~110 files, ~200 ms) is not part of every
 * start.
 */
export async function sendWebhook(request: WebhookRequest, options: SendWebhookOptions): Promise<WebhookResult> {
  return (await import('./request.js')).sendWebhook(request, options)
}
