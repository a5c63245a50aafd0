import { ApiError } from '../../api/client'

/** Field errors inside one condition tree, keyed by their path in it: `groups.1.filters.0.operator`. */
export type ConditionErrors = Record<string, string>

/**
 * The API's field errors about the tree sent under `prefix` (`condition` for segments, `audienceCondition` for
 * campaigns), with the prefix taken off, for the builder's `errors` prop.
 */
export function conditionErrors(error: unknown, prefix: string): ConditionErrors {
  if (!(error instanceof ApiError)) return {}
  const errors: ConditionErrors = {}
  const start = prefix ? `${prefix}.` : ''
  for (const fieldError of error.fieldErrors) {
    if (fieldError.field === prefix) errors[''] = fieldError.message
    else if (fieldError.field.startsWith(start)) errors[fieldError.field.slice(start.length)] ??= fieldError.message
  }
  return errors
}

/** Whether the API's error is only about the tree, so the form need not show it again on its own. */
export function isConditionError(error: unknown, prefix: string): boolean {
  return (
    error instanceof ApiError &&
    error.fieldErrors.length > 0 &&
    error.fieldErrors.every((fieldError) => fieldError.field === prefix || fieldError.field.startsWith(`${prefix}.`))
  )
}

/** The errors below `path` (a group's or nested tree's), keyed relative to it. */
export function errorsUnder(errors: ConditionErrors, path: string): ConditionErrors {
  const under: ConditionErrors = {}
  for (const [key, message] of Object.entries(errors)) {
    if (key === path) under[''] = message
    else if (key.startsWith(`${path}.`)) under[key.slice(path.length + 1)] = message
  }
  return under
}
