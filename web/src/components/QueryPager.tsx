import type { UseQueryResult } from '@tanstack/react-query'
import { CursorPager } from './CursorPager'
import type { Cursors } from './use-cursors'

/** Previous/next under a cursor-paged query, once its first page has loaded. */
export function QueryPager({
  pages,
  query,
}: {
  pages: Cursors
  query: UseQueryResult<{ hasMore: boolean; cursor: string }>
}) {
  if (!query.data) return null
  const next = query.data.cursor
  return (
    <CursorPager
      page={pages.page}
      hasMore={query.data.hasMore}
      busy={query.isFetching}
      onPrevious={pages.previous}
      onNext={() => pages.next(next)}
    />
  )
}
