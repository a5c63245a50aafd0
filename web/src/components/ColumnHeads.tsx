import { Table } from '@mantine/core'
import type { ReactNode } from 'react'

type Column = string | { label: ReactNode; key: string; width?: number }

/** A table's header row of column headings (`scope="col"`, so each cell is read with its column's name). */
export function ColumnHeads({ columns }: { columns: Column[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((column) =>
          typeof column === 'string' ? (
            <Table.Th scope="col" key={column}>
              {column}
            </Table.Th>
          ) : (
            <Table.Th scope="col" key={column.key} w={column.width}>
              {column.label}
            </Table.Th>
          ),
        )}
      </Table.Tr>
    </Table.Thead>
  )
}
