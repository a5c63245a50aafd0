import { Group, Table, Text, Title } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useProject } from '../../api/project-context'
import { segmentQueries } from '../../api/segments'
import type { Segment } from '../../api/types'
import { DataTable } from '../../components/DataTable'
import { PagedList } from '../../components/PagedList'
import { SubscriptionBadge } from '../../components/SubscriptionBadge'
import { EmptyState } from '../../components/states'
import { TruncatedLink } from '../../components/TruncatedLink'

/** The segment's members, paged: a dynamic segment's as its condition selects them now, a static one's as added. */
export function SegmentMembers({ segment }: { segment: Segment }) {
  const { project } = useProject()
  const [page, setPage] = useState(1)
  const members = useQuery({
    ...segmentQueries.members(project.id, segment.id, page),
    placeholderData: keepPreviousData,
  })
  return (
    <section aria-labelledby="segment-members-title">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="segment-members-title">
          Members
        </Title>
        {members.data && (
          <Text size="sm" c="dimmed" aria-live="polite" data-testid="segment-member-total">
            {members.data.total.toLocaleString()} {members.data.total === 1 ? 'contact' : 'contacts'}
          </Text>
        )}
      </Group>
      <PagedList
        query={members}
        label="Loading members"
        page={page}
        onPage={setPage}
        empty={
          <EmptyState title="No members">
            {segment.type === 'STATIC'
              ? 'Add contacts by email address above.'
              : 'No contact matches the condition now. Edit it, or wait for contacts that match.'}
          </EmptyState>
        }
      >
        {(result) => (
          <DataTable label="Segment members" columns={['Email', 'Subscription', 'Created']} busy={members.isFetching}>
            {result.data.map((contact) => (
              <Table.Tr key={contact.id}>
                <Table.Td>
                  <TruncatedLink to={`/contacts/${contact.id}`} text={contact.email} />
                </Table.Td>
                <Table.Td>
                  <SubscriptionBadge subscribed={contact.subscribed} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{new Date(contact.createdAt).toLocaleString()}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </PagedList>
    </section>
  )
}
