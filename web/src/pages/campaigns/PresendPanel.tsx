import { Paper, Stack, Text, Title } from '@mantine/core'
import type { UseQueryResult } from '@tanstack/react-query'
import type { CampaignCheck } from '../../api/types'
import { QueryState } from '../../components/states'
import { PresendFindings } from './PresendFindings'

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`
}

function summaryOf(check: CampaignCheck): string {
  const warnings = plural(check.warnings, 'warning', 'warnings')
  if (check.errors === 0) {
    return check.warnings === 0 ? 'Ready to send.' : `Ready to send, with ${warnings} worth a look.`
  }
  return (
    `${plural(check.errors, 'error stops', 'errors stop')} this campaign from being sent or scheduled until fixed ` +
    `(a project owner may send it anyway)${check.warnings > 0 ? `, and ${warnings}` : ''}.`
  )
}

/** The campaign as the pre-send check sees it, before it is sent: errors block the send, warnings do not. */
export function PresendPanel({ check }: { check: UseQueryResult<CampaignCheck> }) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="presend-title" data-testid="presend-panel">
      <Title order={2} size="h4" id="presend-title" mb="sm">
        Pre-send check
      </Title>
      <QueryState query={check} label="Checking the campaign">
        {(data) => (
          <Stack gap="sm">
            <Text size="sm" fw={500} data-testid="presend-summary">
              {summaryOf(data)}
            </Text>
            <PresendFindings findings={data.findings} />
          </Stack>
        )}
      </QueryState>
    </Paper>
  )
}

/** Said on the campaign for good once an owner sent or scheduled it despite errors. */
export function OverrideNote({ override }: { override: NonNullable<CampaignCheck['override']> }) {
  return (
    <Text size="sm" data-testid="presend-override">
      Sent despite the pre-send check’s errors ({override.codes.join(', ')}): an owner chose to send it anyway on{' '}
      {new Date(override.at).toLocaleString()}.
    </Text>
  )
}
