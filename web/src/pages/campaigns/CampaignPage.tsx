import { Anchor, Box, Button, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core'
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams } from 'react-router'
import { campaignQueries, deleteCampaign } from '../../api/campaigns'
import { useProject } from '../../api/project-context'
import type { Campaign } from '../../api/types'
import { ConfirmAction } from '../../components/ConfirmAction'
import { treeOf } from '../../components/conditions'
import { notifySuccess } from '../../components/notify'
import { PageHeader, QueryState } from '../../components/states'
import { CampaignPreview } from './CampaignPreview'
import { CampaignRecipients } from './CampaignRecipients'
import { CampaignStatsPanel } from './CampaignStatsPanel'
import { audienceLabel, StatusBadge } from './campaign-labels'
import { OverrideNote, PresendPanel } from './PresendPanel'
import { SendingProgress } from './SendingProgress'
import { SendPanel } from './SendPanel'

/** How often the page asks again: a sending campaign moves by the second, a scheduled one starts on its own. */
function pollMs(campaign: Campaign | undefined): number | false {
  if (campaign?.status === 'SENDING') return 2_000
  if (campaign?.status === 'SCHEDULED') return 15_000
  return false
}

export function CampaignPage() {
  const { id = '' } = useParams()
  const { project } = useProject()
  const campaign = useQuery({
    ...campaignQueries.detail(project.id, id),
    refetchInterval: (query) => pollMs(query.state.data),
  })
  return (
    <>
      <Anchor component={Link} to="/campaigns" size="sm">
        ← All campaigns
      </Anchor>
      <QueryState query={campaign} label="Loading the campaign">
        {(loaded) => <CampaignView campaign={loaded} />}
      </QueryState>
    </>
  )
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm">{children}</Text>
    </div>
  )
}

function CampaignView({ campaign }: { campaign: Campaign }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const editable = campaign.status === 'DRAFT' || campaign.status === 'SCHEDULED'
  // The last answer stays up while a new version is checked: the page does not jump under the pointer.
  const check = useQuery({
    ...campaignQueries.check(project.id, campaign.id, campaign.updatedAt),
    placeholderData: keepPreviousData,
  })
  const override = check.data?.override
  return (
    <Stack mt="sm">
      <PageHeader title={campaign.name}>
        <span data-testid="campaign-status">
          <StatusBadge status={campaign.status} />
        </span>
        {editable && (
          <Button component={Link} to={`/campaigns/${campaign.id}/edit`} variant="default">
            Edit
          </Button>
        )}
        {campaign.status !== 'SENDING' && (
          <ConfirmAction
            label="Delete"
            title={`Delete “${campaign.name}”?`}
            confirmLabel="Delete campaign"
            action={() => deleteCampaign(project.id, campaign.id)}
            onDone={async () => {
              notifySuccess(`Campaign “${campaign.name}” deleted`)
              navigate('/campaigns')
              await queryClient.invalidateQueries({ queryKey: campaignQueries.all(project.id) })
            }}
          >
            The campaign is deleted. Emails already sent stay in the contacts’ history.
          </ConfirmAction>
        )}
      </PageHeader>
      <Paper withBorder p="md">
        <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md">
          <Fact label="Subject">{campaign.subject}</Fact>
          <Fact label="From">{campaign.fromName ? `${campaign.fromName} <${campaign.from}>` : campaign.from}</Fact>
          <Fact label="Audience">{audienceLabel(campaign)}</Fact>
          <Fact label="Recipients">{campaign.totalRecipients.toLocaleString()}</Fact>
          {campaign.scheduledFor && campaign.status === 'SCHEDULED' && (
            <Fact label="Scheduled for">{new Date(campaign.scheduledFor).toLocaleString()}</Fact>
          )}
          {campaign.sentAt && <Fact label="Sending started">{new Date(campaign.sentAt).toLocaleString()}</Fact>}
        </SimpleGrid>
        {override && campaign.status !== 'DRAFT' && <OverrideNote override={override} />}
      </Paper>
      {campaign.status === 'SENDING' && <SendingProgress campaign={campaign} />}
      {editable && <PresendPanel check={check} />}
      {(editable || campaign.status === 'SENDING') && <SendPanel campaign={campaign} check={check.data} />}
      {campaign.sentCount > 0 || campaign.status === 'SENT' ? (
        <CampaignStatsPanel campaign={campaign} />
      ) : (
        <Group>
          <Text size="sm" c="dimmed">
            Stats appear here once emails go out.
          </Text>
        </Group>
      )}
      {campaign.status !== 'DRAFT' && <CampaignRecipients campaign={campaign} />}
      <Box maw={720}>
        <CampaignPreview
          subject={campaign.subject}
          body={campaign.body}
          audience={{
            audienceType: campaign.audienceType,
            segmentId: campaign.segmentId,
            audienceCondition: treeOf(campaign.audienceCondition),
          }}
          type={campaign.type}
        />
      </Box>
    </Stack>
  )
}
