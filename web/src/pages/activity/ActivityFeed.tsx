import { Box, Group, Paper, Stack, Table, Text } from '@mantine/core'
import type { Activity } from '../../api/types'
import { ColumnHeads } from '../../components/ColumnHeads'
import { TableFrame } from '../../components/TableFrame'
import { TruncatedLink } from '../../components/TruncatedLink'
import { ActivityBadge, ActivityDetails } from './ActivityDetails'

const when = (entry: Activity) => new Date(entry.timestamp).toLocaleString()

function ContactCell({ entry }: { entry: Activity }) {
  return entry.contact ? (
    <TruncatedLink to={`/contacts/${entry.contact.id}`} text={entry.contact.email} maw={260} />
  ) : (
    <Text size="sm" c="dimmed">
      —
    </Text>
  )
}

/**
 * Activity entries: a table on a wide screen; on a phone, where four columns would hide the details off to the
 * side, a card per entry with its details in full width. Only one of the two is displayed (and so read) at a time.
 */
export function ActivityFeed({
  entries,
  label,
  busy,
  withContact = true,
}: {
  entries: Activity[]
  /** The table's and the list's accessible name. */
  label: string
  busy?: boolean
  /** Off on a contact's own page, where every entry is that contact's. */
  withContact?: boolean
}) {
  return (
    <>
      <Box visibleFrom="sm">
        <TableFrame minWidth={withContact ? 760 : 560}>
          <Table aria-label={label} aria-busy={busy}>
            <ColumnHeads columns={withContact ? ['Type', 'Contact', 'Details', 'When'] : ['Type', 'Details', 'When']} />
            <Table.Tbody>
              {entries.map((entry) => (
                <Table.Tr key={entry.id}>
                  <Table.Td>
                    <ActivityBadge type={entry.type} />
                  </Table.Td>
                  {withContact && (
                    <Table.Td>
                      <ContactCell entry={entry} />
                    </Table.Td>
                  )}
                  <Table.Td>
                    <ActivityDetails entry={entry} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{when(entry)}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableFrame>
      </Box>
      <Stack gap="xs" hiddenFrom="sm" component="ul" aria-label={label} aria-busy={busy} p={0} m={0}>
        {entries.map((entry) => (
          <Paper key={entry.id} withBorder p="sm" component="li" style={{ listStyle: 'none' }}>
            <Group justify="space-between" gap="xs" mb={4}>
              <ActivityBadge type={entry.type} />
              <Text size="xs" c="dimmed">
                {when(entry)}
              </Text>
            </Group>
            {withContact && <ContactCell entry={entry} />}
            <ActivityDetails entry={entry} />
          </Paper>
        ))}
      </Stack>
    </>
  )
}
