import { Anchor, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { lazy, Suspense } from 'react'
import { Link } from 'react-router'
import { campaignQueries } from '../../api/campaigns'
import { useProject } from '../../api/project-context'
import type { Campaign, CampaignStats } from '../../api/types'
import { Loading, QueryState } from '../../components/states'

// recharts is large: its own chunk, loaded only where a chart is shown.
const CampaignChart = lazy(async () => ({ default: (await import('./CampaignChart')).CampaignChart }))

type Totals = CampaignStats['data']

type Tile = { label: string; count: keyof Totals; rate?: keyof Totals }

const tiles: Tile[] = [
  { label: 'Recipients', count: 'totalRecipients' },
  { label: 'Sent', count: 'sentCount' },
  { label: 'Captured', count: 'capturedCount' },
  { label: 'Delivered', count: 'deliveredCount', rate: 'deliveryRate' },
  { label: 'Opened', count: 'openedCount', rate: 'openRate' },
  { label: 'Clicked', count: 'clickedCount', rate: 'clickRate' },
  { label: 'Bounced', count: 'bouncedCount', rate: 'bounceRate' },
  { label: 'Complaints', count: 'complainedCount', rate: 'complaintRate' },
  { label: 'Unsubscribed', count: 'unsubscribedCount', rate: 'unsubscribeRate' },
]

/**
 * Captured mail (MAIL_TRANSPORT=capture) never reaches anyone: it shows as captured, and a delivered count of 0
 * beside it would only say that nothing was delivered, so it goes; without captures there is no captured tile.
 */
function shownTiles(data: Totals): Tile[] {
  return tiles.filter((tile) => {
    if (tile.count === 'capturedCount') return data.capturedCount > 0
    if (tile.count === 'deliveredCount') return data.deliveredCount > 0 || data.capturedCount === 0
    return true
  })
}

/** The API's counters as they are, with their rates, and the emails' activity over time. */
export function CampaignStatsPanel({ campaign }: { campaign: Campaign }) {
  const { project } = useProject()
  const stats = useQuery(campaignQueries.stats(project.id, campaign))
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="stats-title">
      <Title order={2} size="h4" id="stats-title" mb="sm">
        Stats
      </Title>
      <QueryState query={stats} label="Loading stats">
        {({ data }) => (
          <Stack>
            <SimpleGrid cols={{ base: 4, lg: 8 }} spacing="sm" component="dl" m={0}>
              {shownTiles(data).map((tile) => (
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
            {data.capturedCount > 0 && (
              <Text size="sm" c="dimmed" data-testid="captured-note">
                {data.capturedCount.toLocaleString()} of these emails were captured: this server kept them with the{' '}
                <Anchor component={Link} to="/mailbox" underline="always">
                  captured messages
                </Anchor>{' '}
                instead of sending them, so they were never delivered, opened or bounced.
              </Text>
            )}
            <Suspense fallback={<Loading label="Loading the chart" />}>
              <CampaignChart campaignId={campaign.id} version={`${campaign.updatedAt}:${campaign.sentCount}`} />
            </Suspense>
          </Stack>
        )}
      </QueryState>
    </Paper>
  )
}
