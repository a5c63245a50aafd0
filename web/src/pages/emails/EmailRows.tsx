import { Table, Text } from '@mantine/core'
import type { EmailSummary } from '../../api/types'
import { ColumnHeads } from '../../components/ColumnHeads'
import { RelativeTime } from '../../components/RelativeTime'
import { TableFrame } from '../../components/TableFrame'
import { TruncatedLink } from '../../components/TruncatedLink'
import { EmailStatusBadge, sourceOf } from './email-labels'

/**
 * Emails as a table, newest first, each subject linking to the email's timeline. `withRecipient` is off on a
 * contact's page, where every row is to that contact.
 */
export function EmailRows({
  emails,
  label,
  busy,
  withRecipient = true,
}: {
  emails: EmailSummary[]
  /** The table's accessible name. */
  label: string
  busy?: boolean
  withRecipient?: boolean
}) {
  const columns = withRecipient
    ? ['Subject', 'Recipient', 'Status', 'Source', 'Accepted']
    : ['Subject', 'Status', 'Source', 'Accepted']
  return (
    <TableFrame minWidth={withRecipient ? 760 : 560}>
      <Table aria-label={label} aria-busy={busy}>
        <ColumnHeads columns={columns} />
        <Table.Tbody>
          {emails.map((email) => (
            <Table.Tr key={email.id}>
              <Table.Td>
                <TruncatedLink to={`/emails/${email.id}`} text={email.subject || '(no subject)'} maw={300} />
              </Table.Td>
              {withRecipient && (
                <Table.Td>
                  <Text size="sm" maw={260} truncate="end" title={email.to.email}>
                    {email.to.email}
                  </Text>
                </Table.Td>
              )}
              <Table.Td>
                <EmailStatusBadge status={email.status} />
              </Table.Td>
              <Table.Td>
                <Text size="sm">{sourceOf(email)}</Text>
              </Table.Td>
              <Table.Td>
                <RelativeTime at={email.createdAt} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableFrame>
  )
}
