import { Table } from '@mantine/core'
import type { ReactNode } from 'react'
import { TableFrame } from './TableFrame'

/** A bordered table with its name, column headers and a busy flag while a newer page loads. */
export function DataTable({
  label,
  columns,
  busy,
  minWidth = 560,
  children,
}: {
  label: string
  columns: string[]
  busy?: boolean
  /** Below this width the table scrolls sideways in its frame. */
  minWidth?: number
  children: ReactNode
}) {
  return (
    <TableFrame minWidth={minWidth}>
      <Table highlightOnHover aria-label={label} aria-busy={busy}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th scope="col" key={column}>
                {column}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </TableFrame>
  )
}
