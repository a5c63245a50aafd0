import { Paper, Table } from '@mantine/core'
import type { ReactNode } from 'react'

/** A bordered table with its name, column headers and a busy flag while a newer page loads. */
export function DataTable({
  label,
  columns,
  busy,
  children,
}: {
  label: string
  columns: string[]
  busy?: boolean
  children: ReactNode
}) {
  return (
    <Paper withBorder>
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
    </Paper>
  )
}
