import { Group, Pagination } from '@mantine/core'
import type { UseQueryResult } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { QueryState } from './states'

type OffsetPage = { total: number; totalPages: number }

/** One page of an offset-paged list: loading, error, the empty state when there is nothing, else rows and pages. */
export function PagedList<Page extends OffsetPage>({
  query,
  label,
  page,
  onPage,
  empty,
  children,
}: {
  query: UseQueryResult<Page>
  label: string
  page: number
  onPage(page: number): void
  empty: ReactNode
  children: (result: Page) => ReactNode
}) {
  return (
    <QueryState query={query} label={label}>
      {(result) =>
        result.total === 0 ? (
          empty
        ) : (
          <>
            {children(result)}
            {result.totalPages > 1 && (
              <Group justify="flex-end" mt="sm">
                <Pagination
                  total={result.totalPages}
                  value={page}
                  onChange={onPage}
                  getControlProps={(control) => ({ 'aria-label': `${control} page` })}
                />
              </Group>
            )}
          </>
        )
      }
    </QueryState>
  )
}
