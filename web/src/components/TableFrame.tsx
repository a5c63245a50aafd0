import { Paper, Table } from '@mantine/core'
import type { ReactNode } from 'react'

/**
 * Below `minWidth` (a phone) the table scrolls sideways in here, so the page itself never does; on a wider screen
 * nothing changes. Positioned, so that what is absolutely placed in a cell (a visually hidden column name) scrolls
 * with the table instead of widening the page.
 */
export function TableScroll({ minWidth, children }: { minWidth: number; children: ReactNode }) {
  return (
    <Table.ScrollContainer minWidth={minWidth} type="native" pos="relative">
      {children}
    </Table.ScrollContainer>
  )
}

/** A table's bordered frame, the table scrolling sideways inside it on a narrow screen (see TableScroll). */
export function TableFrame({
  minWidth,
  above,
  children,
}: {
  minWidth: number
  /** What sits in the frame above the table and stays put while it scrolls (a bar of bulk actions). */
  above?: ReactNode
  children: ReactNode
}) {
  return (
    <Paper withBorder>
      {above}
      <TableScroll minWidth={minWidth}>{children}</TableScroll>
    </Paper>
  )
}
