import { Button, Group, Select, Table, Text, Title } from '@mantine/core'
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { campaignQueries, downloadRecipientsCsv } from '../../api/campaigns'
import { useProject } from '../../api/project-context'
import type { Campaign, CampaignRecipient, RecipientState } from '../../api/types'
import { ColumnHeads } from '../../components/ColumnHeads'
import { QueryPager } from '../../components/QueryPager'
import { RelativeTime } from '../../components/RelativeTime'
import { EmptyState, ErrorAlert, QueryState } from '../../components/states'
import { TableFrame } from '../../components/TableFrame'
import { TruncatedLink } from '../../components/TruncatedLink'
import { useCursors } from '../../components/use-cursors'
import { EmailStatusBadge } from '../emails/email-labels'

/** The nine states, as the filter names them; an email is in each state it reached. */
const stateLabels: Record<RecipientState, string> = {
  queued: 'Queued',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
  bounced: 'Bounced',
  complained: 'Complained',
  opened: 'Opened',
  clicked: 'Clicked',
  unsubscribed: 'Unsubscribed',
}
const isState = (value: string | null): value is RecipientState => value !== null && value in stateLabels

/** The latest thing that happened to the email, for the "Last change" column. */
function lastChange(recipient: CampaignRecipient): string | null {
  const moments = [
    recipient.complainedAt,
    recipient.bouncedAt,
    recipient.clickedAt,
    recipient.openedAt,
    recipient.deliveredAt,
    recipient.failedAt,
    recipient.sentAt,
  ].filter((moment): moment is string => moment !== null)
  return moments.sort().at(-1) ?? null
}

/** Hands a downloaded file to the browser to save. */
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.click()
  URL.revokeObjectURL(url)
}

/**
 * A campaign's recipients, filtered by state, a page at a time; each opens its email's timeline. The CSV holds
 * every recipient in the state chosen.
 */
export function CampaignRecipients({ campaign }: { campaign: Campaign }) {
  const { project } = useProject()
  const [state, setState] = useState<RecipientState | undefined>(undefined)
  const pages = useCursors()
  const recipients = useQuery({
    ...campaignQueries.recipients(project.id, campaign.id, { state, cursor: pages.cursor }),
    placeholderData: keepPreviousData,
  })
  const download = useMutation({
    mutationFn: () => downloadRecipientsCsv(project.id, campaign.id, state),
    onSuccess: (blob) => save(blob, `campaign-${campaign.id}-${state ?? 'all'}-recipients.csv`),
  })
  return (
    <section aria-labelledby="campaign-recipients">
      <Title order={2} size="h4" mb="xs" id="campaign-recipients">
        Recipients
      </Title>
      <Group mb="sm" align="flex-end" justify="space-between">
        <Select
          label="State"
          placeholder="Every recipient"
          clearable
          value={state ?? null}
          onChange={(value) => {
            setState(isState(value) ? value : undefined)
            pages.restart()
          }}
          data={Object.entries(stateLabels).map(([value, label]) => ({ value, label }))}
          w={220}
        />
        <Button variant="default" loading={download.isPending} onClick={() => download.mutate()}>
          Download CSV
        </Button>
      </Group>
      {download.isError && <ErrorAlert error={download.error} title="Could not download the recipients" />}
      <QueryState query={recipients} label="Loading recipients">
        {(page) =>
          page.data.length === 0 && pages.page === 1 ? (
            <EmptyState title={state ? `No recipients ${stateLabels[state].toLowerCase()}` : 'No recipients yet'}>
              {state
                ? 'An email is in each state it reached: a clicked email was also sent, delivered and opened.'
                : 'Recipients appear here as the campaign queues their emails.'}
            </EmptyState>
          ) : (
            <TableFrame minWidth={720}>
              <Table aria-label="Recipients" aria-busy={recipients.isFetching}>
                <ColumnHeads columns={['Recipient', 'Status', 'Last change', 'Failure reason']} />
                <Table.Tbody>
                  {page.data.map((recipient) => {
                    const changed = lastChange(recipient)
                    return (
                      <Table.Tr key={recipient.emailId}>
                        <Table.Td>
                          <TruncatedLink to={`/emails/${recipient.emailId}`} text={recipient.email} maw={280} />
                        </Table.Td>
                        <Table.Td>
                          <EmailStatusBadge status={recipient.status} />
                        </Table.Td>
                        <Table.Td>{changed ? <RelativeTime at={changed} /> : <Text size="sm">—</Text>}</Table.Td>
                        <Table.Td>
                          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                            {recipient.failureReason ?? '—'}
                          </Text>
                        </Table.Td>
                      </Table.Tr>
                    )
                  })}
                </Table.Tbody>
              </Table>
            </TableFrame>
          )
        }
      </QueryState>
      <QueryPager pages={pages} query={recipients} />
    </section>
  )
}
