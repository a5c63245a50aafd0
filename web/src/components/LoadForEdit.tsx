import { type QueryKey, type UseQueryOptions, useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { QueryState } from './states'

/**
 * The one page that creates a record (no `id`: the blank form at once) or edits one (the form once the record is
 * loaded, with loading and error states until then). `query` is the resource's detail factory (`api/<resource>.ts`).
 */
export function LoadForEdit<Row, Key extends QueryKey>({
  id,
  query,
  label,
  children,
}: {
  id: string | undefined
  query(id: string): UseQueryOptions<Row, Error, Row, Key>
  label: string
  children: (loaded: Row | undefined) => ReactNode
}) {
  const record = useQuery({ ...query(id ?? ''), enabled: id !== undefined })
  if (id === undefined) return <>{children(undefined)}</>
  return (
    <QueryState query={record} label={label}>
      {children}
    </QueryState>
  )
}
