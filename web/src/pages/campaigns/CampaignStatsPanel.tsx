import { Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { lazy, Suspense } from 'react'
import { campaignsKey, getCampaignStats } from '../../api/campaigns'
import { useProject } from '../../api/project-context'
import type { Campaign, CampaignStats } from '../../api/types'
import { Loading, QueryState } from '../../components/states'

// recharts is large: its own chunk, loaded only where a chart is shown.
const CampaignChart = lazy(async () => ({ default: (await import('./CampaignChart')).CampaignChart }))

type Totals = CampaignStats['data']

const tiles: { label: string; count: keyof Totals; rate?: keyof Totals }[] = [
  { label: 'Recipients', count: 'totalRecipients' },
  { label: 'Sent', count: 'sentCount' },
  { label: 'Delivered', count: 'deliveredCount', rate: 'deliveryRate' },
  { label: 'Opened', count: 'openedCount', rate: 'openRate' },
  { label: 'Clicked', count: 'clickedCount', rate: 'clickRate' },
  { label: 'Bounced', count: 'bouncedCount', rate: 'bounceRate' },
  { label: 'Complaints', count: 'complainedCount', rate: 'complaintRate' },
  { label: 'Unsubscribed', count: 'unsubscribedCount', rate: 'unsubscribeRate' },
]

/** The API's counters as they are, with their rates, and the emails' activity over time. */
export function CampaignStatsPanel({ campaign }: { campaign: Campaign }) {
  const { project } = useProject()
  const stats = useQuery({
    // Keyed by the campaign's counters, so each poll of a sending campaign that moved asks again.
    queryKey: [...campaignsKey(project.id), campaign.id, 'stats', campaign.updatedAt, campaign.sentCount],
    queryFn: () => getCampaignStats(project.id, campaign.id),
  })
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="stats-title">
      <Title order={2} size="h4" id="stats-title" mb="sm">
        Stats
      </Title>
      <QueryState query={stats} label="Loading stats">
        {({ data }) => (
          <Stack>
            <SimpleGrid cols={{ base: 4, lg: 8 }} spacing="sm" component="dl" m={0}>
              {tiles.map((tile) => (
                <div key={tile.label} data-testid={`stat-${tile.count}`}>
                  <Text component="dt" size="xs" c="dimmed">
                    {tile.label}
                  </Text>
                  <Text component="dd" m={0} fw={700} size="lg" data-count>
                    {data[tile.count].toLocaleString()}
                  </Text>
                  {tile.rate && (
                    <Text component="dd" m={0} size="xs" c="dimmed" data-rate>
                      {data[tile.rate].toLocaleString()}%
                    </Text>
                  )}
                </div>
              ))}
            </SimpleGrid>
            <Suspense fallback={<Loading label="Loading the chart" />}>
              <CampaignChart campaignId={campaign.id} version={`${campaign.updatedAt}:${campaign.sentCount}`} />
            </Suspense>
          </Stack>
        )}
      </QueryState>
    </Paper>
  )
}
