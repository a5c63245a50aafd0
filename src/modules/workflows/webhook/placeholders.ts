import type { SubscriptionUrls } from '../../../mail/outbound/subscription-links.js'

/** What a webhook step's placeholders can read. */
export type WebhookVariables = {
  contact: { id: string; email: string; subscribed: boolean; data: Record<string, unknown> }
  /** The trigger event's payload; empty for executions not started by an event. */
  event: Record<string, unknown>
  /** The execution's context (what a MANUAL start was given). */
  context: Record<string, unknown>
  subscriptionUrls: SubscriptionUrls
}

/** `{{ name }}`: spaces inside the braces are allowed; braces inside a name are not. */
export const placeholderPattern = /\{\{\s*([^{}]*?)\s*\}\}/g
const wholePlaceholderPattern = /^\{\{\s*([^{}]*?)\s*\}\}$/

const reservedNames = new Set(['unsubscribeUrl', 'subscribeUrl', 'manageUrl'])

/**
 * The value of one placeholder; the first match wins:
 * 1. `id`, `email`, `unsubscribeUrl`, `subscribeUrl`, `manageUrl`: the contact's own, never shadowed by data
 * 2. `data.<path>` (contact data) and `event.<path>` (trigger event): an explicit namespace is definitive
 * 3. `<path>` in the execution context: given for this run, so more specific than the contact's data
 * 4. `<path>` in the contact's data
 * Paths are dot-separated (`event.order.id`, `items.0.sku`) and read own properties only, so
 * `{{constructor}}` finds nothing. Undefined when nothing matches.
 */
function lookupPlaceholder(name: string, variables: WebhookVariables): unknown {
  if (name === 'id') return variables.contact.id
  if (name === 'email') return variables.contact.email
  if (reservedNames.has(name)) return variables.subscriptionUrls[name as keyof SubscriptionUrls]
  if (name.startsWith('data.')) return readPath(variables.contact.data, name.slice('data.'.length))
  if (name.startsWith('event.')) return readPath(variables.event, name.slice('event.'.length))
  const fromContext = readPath(variables.context, name)
  return fromContext !== undefined ? fromContext : readPath(variables.contact.data, name)
}

function readPath(root: unknown, path: string): unknown {
  let current = root
  for (const key of path.split('.')) {
    if (key === '' || current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) {
      return undefined
    }
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

/** How a value reads inside text: missing is empty, objects are their JSON. */
function placeholderText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'object') return JSON.stringify(value) ?? ''
  return String(value)
}

/** Replaces every placeholder in `template`; `encode` is applied to each substituted value only. */
export function renderText(
  template: string,
  variables: WebhookVariables,
  encode: (text: string) => string = (text) => text,
): string {
  return template.replace(placeholderPattern, (_match, name: string) =>
    encode(placeholderText(lookupPlaceholder(name, variables))),
  )
}

/**
 * Fills placeholders in every string of a JSON value (keys stay as written). A string that is exactly one
 * placeholder takes the value's own JSON type, so `"{{event.total}}"` sends a number; text around
 * placeholders makes a string. A missing value is an empty string either way.
 */
export function renderJson(value: unknown, variables: WebhookVariables): unknown {
  if (typeof value === 'string') {
    const whole = wholePlaceholderPattern.exec(value)
    if (!whole) return renderText(value, variables)
    const found = lookupPlaceholder(whole[1] ?? '', variables)
    if (found === undefined) return ''
    return found instanceof Date ? found.toISOString() : found
  }
  if (Array.isArray(value)) return value.map((item) => renderJson(item, variables))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderJson(item, variables)]))
  }
  return value
}
