/** The WEBHOOK step's outbound HTTP: config validation, placeholder rendering and SSRF-guarded delivery. */
export { type AddressVerdict, checkAddress } from './address-policy.js'
export {
  type WebhookMethod,
  type WebhookStepConfig,
  type WebhookStepConfigInput,
  webhookMethods,
  webhookStepConfig,
} from './config.js'
export { WebhookError, type WebhookErrorReason } from './errors.js'
export { type DefaultWebhookPayload, type DefaultWebhookPayloadInput, defaultWebhookPayload } from './payload.js'
export type { WebhookVariables } from './placeholders.js'
export { renderWebhookRequest, type WebhookRequest } from './render.js'
export { type SendWebhookOptions, sendWebhook, type WebhookResult } from './request.js'
