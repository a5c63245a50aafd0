import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { QueryState } from './states'

/**
 * The one page that creates a record (no `id`: the blank form at once) or edits one (the form once the record is
 * loaded, with loading and error states until then).
 */
export function LoadForEdit<Row>({
  id,
  queryKey,
  load,
  label,
  children,
}: {
  id: string | undefined
  queryKey: unknown[]
  load(id: string): Promise<Row>
  label: string
  children: (loaded: Row | undefined) => ReactNode
}) {
  const record = useQuery({ queryKey, queryFn: () => load(id ?? ''), enabled: id !== undefined })
  if (id === undefined) return <>{children(undefined)}</>
  return (
    <QueryState query={record} label={label}>
      {children}
    </QueryState>
  )
}
