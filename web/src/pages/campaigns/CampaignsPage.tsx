import { Button, Table, Text } from '@mantine/core'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { Link } from 'react-router'
import { campaignQueries } from '../../api/campaigns'
import { useProject } from '../../api/project-context'
import { DataTable } from '../../components/DataTable'
import { ListEmptyState } from '../../components/ListEmptyState'
import { ListFilters } from '../../components/ListFilters'
import { useListFilters } from '../../components/list-filters'
import { PagedList } from '../../components/PagedList'
import { PageHeader } from '../../components/states'
import { TruncatedLink } from '../../components/TruncatedLink'
import { audienceLabel, StatusBadge } from './campaign-labels'

export function CampaignsPage() {
  const { project } = useProject()
  const filters = useListFilters()
  const { debounced, option: status, page } = filters
  const campaigns = useQuery({
    ...campaignQueries.list(project.id, { page, search: debounced, status: status ?? undefined }),
    placeholderData: keepPreviousData,
    // Sending campaigns move; keep their counts current.
    refetchInterval: (q) => (q.state.data?.data.some((c) => c.status === 'SENDING') ? 3_000 : false),
  })
  return (
    <>
      <PageHeader title="Campaigns">
        <Button component={Link} to="/campaigns/new">
          New campaign
        </Button>
      </PageHeader>
      <ListFilters
        state={filters}
        searchPlaceholder="Name or subject"
        optionLabel="Status"
        optionPlaceholder="Any status"
        options={['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED']}
      />
      <PagedList
        query={campaigns}
        label="Loading campaigns"
        page={page}
        onPage={filters.setPage}
        empty={
          <ListEmptyState
            filtered={filters.filtered}
            plural="campaigns"
            filteredHint="Try another search or status."
            create={{ to: '/campaigns/new', label: 'Create a campaign' }}
          >
            A campaign sends one email to an audience of contacts.
          </ListEmptyState>
        }
      >
        {(result) => (
          <DataTable
            label="Campaigns"
            columns={['Name', 'Status', 'Audience', 'Recipients', 'Sent', 'Updated']}
            busy={campaigns.isFetching}
          >
            {result.data.map((campaign) => (
              <Table.Tr key={campaign.id}>
                <Table.Td>
                  <TruncatedLink to={`/campaigns/${campaign.id}`} text={campaign.name} fw={500} />
                  <Text size="xs" c="dimmed" lineClamp={1} title={campaign.subject}>
                    {campaign.subject}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <StatusBadge status={campaign.status} />
                  {campaign.scheduledFor && campaign.status === 'SCHEDULED' && (
                    <Text size="xs" c="dimmed">
                      {new Date(campaign.scheduledFor).toLocaleString()}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{audienceLabel(campaign)}</Text>
                </Table.Td>
                <Table.Td>{campaign.totalRecipients.toLocaleString()}</Table.Td>
                <Table.Td>{campaign.sentCount.toLocaleString()}</Table.Td>
                <Table.Td>
                  <Text size="sm">{new Date(campaign.updatedAt).toLocaleString()}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </PagedList>
    </>
  )
}
