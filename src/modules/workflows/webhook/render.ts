import { staticSchemePattern, type WebhookMethod, type WebhookStepConfig } from './config.js'
import { WebhookError } from './errors.js'
import { renderJson, renderText, type WebhookVariables } from './placeholders.js'

/** One request, ready to send: every placeholder filled, the body JSON-encoded. */
export type WebhookRequest = {
  url: string
  method: WebhookMethod
  /** Lower-case names. */
  headers: Record<string, string>
  /** Absent on GET. */
  body?: string
}

const webhookUserAgent = 'Mailroom-Webhook/1'

const maxUrlInMessage = 200

/**
 * Fills the step's placeholders. In the URL each value is percent-encoded, so it stays inside its slot (a
 * value cannot add a path, query or user part); a value right after the scheme may still name the host.
 * Throws WebhookError `bad_url` when the result is not an http(s) URL with a host, `header_injection` when
 * a header value would contain CR, LF or NUL,
 * `invalid_header` when it would hold another character HTTP cannot carry.
 */
export function renderWebhookRequest(
  config: WebhookStepConfig,
  variables: WebhookVariables,
  defaultPayload: unknown,
): WebhookRequest {
  const url = renderUrl(config.url, variables)
  const headers: Record<string, string> = { 'user-agent': webhookUserAgent }
  if (config.method !== 'GET') headers['content-type'] = 'application/json'
  for (const [name, template] of Object.entries(config.headers ?? {})) {
    const value = renderText(template, variables)
    if (/[\r\n\0]/.test(value)) {
      throw new WebhookError(
        'header_injection',
        `webhook header ${name} contains a line break or NUL after filling in placeholders; nothing was sent`,
      )
    }
    // HTTP/1.1 field values are Latin-1 without control characters (tab aside); undici refuses the rest.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) {
      throw new WebhookError(
        'invalid_header',
        `webhook header ${name} contains a control character or a character outside Latin-1 after filling in placeholders; nothing was sent`,
      )
    }
    headers[name.toLowerCase()] = value
  }
  if (config.method === 'GET') return { url, method: config.method, headers }
  const payload =
    config.body === undefined || config.body === null ? defaultPayload : renderJson(config.body, variables)
  return { url, method: config.method, headers, body: JSON.stringify(payload) ?? 'null' }
}

function renderUrl(template: string, variables: WebhookVariables): string {
  const scheme = staticSchemePattern.exec(template)?.[0]
  if (!scheme) throw new WebhookError('bad_url', 'webhook URL must start with http:// or https://')
  const rest = renderText(template.slice(scheme.length), variables, encodeURIComponent)
  const rendered = `${scheme}${rest}`
  // `https:///path` would parse with `path` as the host: an empty host placeholder must not move the path up.
  if (rest === '' || /^[/\\?#]/.test(rest)) {
    throw new WebhookError('bad_url', `webhook URL has no host after filling in placeholders: ${clip(rendered)}`)
  }
  if (!URL.canParse(rendered)) {
    throw new WebhookError('bad_url', `webhook URL is not valid after filling in placeholders: ${clip(rendered)}`)
  }
  const url = new URL(rendered)
  if (url.protocol !== scheme.slice(0, -2).toLowerCase()) {
    throw new WebhookError('bad_url', `webhook URL changed scheme after filling in placeholders: ${clip(rendered)}`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new WebhookError('bad_url', 'webhook URL must not carry credentials; send them in an Authorization header')
  }
  return url.href
}

function clip(text: string): string {
  return text.length > maxUrlInMessage ? `${text.slice(0, maxUrlInMessage)}…` : text
}
