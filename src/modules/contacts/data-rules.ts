/**
 * The spec's rules for `data` on every contact write (/v1/send, /v1/track, POST and PATCH /contacts):
 * - a primitive, array or plain object is stored;
 * - `null` deletes the key; `""` is ignored (the stored value stays);
 * - `{value, persistent: false}` is used for this request only and never stored;
 * - reserved keys are dropped silently.
 */
export const reservedDataKeys: ReadonlySet<string> = new Set([
  'id',
  'email',
  'svc_id',
  'svc_email',
  'mailroom_id',
  'mailroom_email',
  'plunk_id',
  'plunk_email',
  'unsubscribeUrl',
  'subscribeUrl',
  'manageUrl',
])

export type ContactDataPatch = {
  /** Keys to merge into the stored data (jsonb `||`). */
  set: Record<string, unknown>
  /** Keys to remove from the stored data (jsonb `-`). */
  unset: string[]
  /** Values for this request only (template variables), never stored. */
  transient: Record<string, unknown>
}

export const emptyDataPatch: ContactDataPatch = Object.freeze({ set: {}, unset: [], transient: {} })

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isValueWrapper(value: Record<string, unknown>): value is { value: unknown; persistent: boolean } {
  const keys = Object.keys(value)
  return keys.length === 2 && 'value' in value && typeof value.persistent === 'boolean'
}

export function resolveContactData(data: Record<string, unknown> | undefined): ContactDataPatch {
  if (!data) return emptyDataPatch
  const patch: ContactDataPatch = { set: {}, unset: [], transient: {} }
  for (const [key, raw] of Object.entries(data)) {
    if (reservedDataKeys.has(key) || raw === undefined) continue
    let value: unknown = raw
    if (isPlainObject(raw) && isValueWrapper(raw)) {
      if (!raw.persistent) {
        patch.transient[key] = raw.value
        continue
      }
      value = raw.value
    }
    if (value === '') continue
    if (value === null) patch.unset.push(key)
    else patch.set[key] = value
  }
  return patch
}

/** What a tracked event records as its `data`: the data as passed, reserved keys dropped, wrappers unwrapped. */
export function eventDataFrom(data: Record<string, unknown> | undefined): Record<string, unknown> {
  const event: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data ?? {})) {
    if (reservedDataKeys.has(key) || value === undefined) continue
    event[key] = isPlainObject(value) && isValueWrapper(value) ? value.value : value
  }
  return event
}
