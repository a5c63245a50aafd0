/** The WEBHOOK step's outbound HTTP: config validation, placeholder rendering and SSRF-guarded delivery. */
export { checkAddress, describeRange as describeAddressRange } from './address-policy.js'
export { type WebhookStepConfigInput, webhookStepConfig } from './config.js'
export { WebhookError } from './errors.js'
export { defaultWebhookPayload } from './payload.js'
export type { WebhookVariables } from './placeholders.js'
export { renderWebhookRequest, type WebhookRequest } from './render.js'
export { sendWebhook } from './request.js'
export { webhookResolverOf } from './resolver.js'
