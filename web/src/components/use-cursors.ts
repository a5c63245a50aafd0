import { useState } from 'react'

/**
 * The cursors of a cursor-paged list: cursors[i] opens page i + 1 (the first page has none). Filters call
 * `restart` so a new search starts at page one.
 */
export function useCursors() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined])
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length,
    restart: () => setCursors([undefined]),
    previous: () => setCursors((list) => (list.length > 1 ? list.slice(0, -1) : list)),
    next: (cursor: string | null | undefined) => {
      if (cursor) setCursors((list) => [...list, cursor])
    },
  }
}

export type Cursors = ReturnType<typeof useCursors>
