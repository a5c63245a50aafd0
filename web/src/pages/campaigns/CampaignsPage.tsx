import { Badge, Button, Group, Pagination, Paper, Select, Table, Text, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import { api, query } from '../../api/client'
import { useProject } from '../../api/project-context'
import type { Campaign, CampaignPage } from '../../api/types'
import { EmptyState, PageHeader, QueryState } from '../../components/states'

const statusColor: Record<Campaign['status'], string> = {
  DRAFT: 'gray.7',
  SCHEDULED: 'indigo.8',
  SENDING: 'blue.9',
  SENT: 'green.9',
  CANCELLED: 'red.9',
}

function audience(campaign: Campaign): string {
  if (campaign.audienceType === 'ALL') return 'All subscribed contacts'
  if (campaign.audienceType === 'SEGMENT') return `Segment: ${campaign.segment?.name ?? 'deleted segment'}`
  return 'Filtered contacts'
}

export function CampaignsPage() {
  const { project } = useProject()
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 300)
  const [status, setStatus] = useState<string | null>(null)
  const [page, setPage] = useState(1)
  const campaigns = useQuery({
    queryKey: ['project', project.id, 'campaigns', debounced, status, page],
    queryFn: () =>
      api<CampaignPage>(`/campaigns${query({ page, pageSize: 20, search: debounced, status: status ?? undefined })}`),
    placeholderData: keepPreviousData,
    // Sending campaigns move; keep their counts current.
    refetchInterval: (q) => (q.state.data?.data.some((c) => c.status === 'SENDING') ? 3_000 : false),
  })
  const filtered = Boolean(debounced || status)
  return (
    <>
      <PageHeader title="Campaigns">
        <Button component={Link} to="/campaigns/new">
          New campaign
        </Button>
      </PageHeader>
      <Group mb="md" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Name or subject"
          type="search"
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value)
            setPage(1)
          }}
          w={320}
        />
        <Select
          label="Status"
          placeholder="Any status"
          clearable
          value={status}
          onChange={(value) => {
            setStatus(value)
            setPage(1)
          }}
          data={['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED']}
          w={200}
        />
      </Group>
      <QueryState query={campaigns} label="Loading campaigns">
        {(result) =>
          result.total === 0 ? (
            <EmptyState
              title={filtered ? 'No campaigns match' : 'No campaigns yet'}
              action={
                filtered ? undefined : (
                  <Button component={Link} to="/campaigns/new" variant="light">
                    Create a campaign
                  </Button>
                )
              }
            >
              {filtered ? 'Try another search or status.' : 'A campaign sends one email to an audience of contacts.'}
            </EmptyState>
          ) : (
            <>
              <Paper withBorder>
                <Table aria-label="Campaigns" aria-busy={campaigns.isFetching}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Name</Table.Th>
                      <Table.Th scope="col">Status</Table.Th>
                      <Table.Th scope="col">Audience</Table.Th>
                      <Table.Th scope="col">Recipients</Table.Th>
                      <Table.Th scope="col">Sent</Table.Th>
                      <Table.Th scope="col">Updated</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {result.data.map((campaign) => (
                      <Table.Tr key={campaign.id}>
                        <Table.Td>
                          <Text size="sm" fw={500}>
                            {campaign.name}
                          </Text>
                          <Text size="xs" c="dimmed" lineClamp={1}>
                            {campaign.subject}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <Badge color={statusColor[campaign.status]}>{campaign.status}</Badge>
                          {campaign.scheduledFor && campaign.status === 'SCHEDULED' && (
                            <Text size="xs" c="dimmed">
                              {new Date(campaign.scheduledFor).toLocaleString()}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{audience(campaign)}</Text>
                        </Table.Td>
                        <Table.Td>{campaign.totalRecipients.toLocaleString()}</Table.Td>
                        <Table.Td>{campaign.sentCount.toLocaleString()}</Table.Td>
                        <Table.Td>
                          <Text size="sm">{new Date(campaign.updatedAt).toLocaleString()}</Text>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Paper>
              {result.totalPages > 1 && (
                <Group justify="flex-end" mt="sm">
                  <Pagination total={result.totalPages} value={page} onChange={setPage} />
                </Group>
              )}
            </>
          )
        }
      </QueryState>
    </>
  )
}
