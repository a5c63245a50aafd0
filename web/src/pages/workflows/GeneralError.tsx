import { ApiError } from '../../api/client'
import { ErrorAlert } from '../../components/states'

/** A form's error when it belongs to no field; field errors are shown next to their fields instead. */
export function GeneralError({ error, title }: { error: Error | null; title: string }) {
  if (!error || (error instanceof ApiError && !error.general)) return null
  return <ErrorAlert error={error} title={title} />
}
