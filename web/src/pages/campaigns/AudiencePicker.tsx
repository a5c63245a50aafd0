import { Fieldset, Group, Loader, SegmentedControl, Select, Stack, Text } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { campaignQueries } from '../../api/campaigns'
import type { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { segmentQueries } from '../../api/segments'
import type { AudienceCountInput, Campaign } from '../../api/types'
import { ConditionBuilder, type ConditionTree, conditionErrors } from '../../components/conditions'

export type Audience = {
  audienceType: Campaign['audienceType']
  segmentId: string | null
  audienceCondition: ConditionTree
}

/** What the API is sent for an audience: only the companion field its type uses. */
export function audienceInput(
  audience: Audience,
): Pick<AudienceCountInput, 'audienceType' | 'segmentId' | 'audienceCondition'> {
  if (audience.audienceType === 'SEGMENT') return { audienceType: 'SEGMENT', segmentId: audience.segmentId }
  if (audience.audienceType === 'FILTERED') {
    return { audienceType: 'FILTERED', audienceCondition: audience.audienceCondition }
  }
  return { audienceType: 'ALL' }
}

/** Who a campaign goes to: everyone subscribed, a segment, or a condition; with the live recipient count. */
export function AudiencePicker({
  value,
  onChange,
  type,
  saveError,
}: {
  value: Audience
  onChange(audience: Audience): void
  type: Campaign['type']
  saveError?: ApiError
}) {
  const { project } = useProject()
  const segments = useQuery(segmentQueries.list(project.id))
  const [debounced] = useDebouncedValue({ ...audienceInput(value), type }, 400)
  const ready = debounced.audienceType !== 'SEGMENT' || Boolean(debounced.segmentId)
  const count = useQuery({
    ...campaignQueries.audienceCount(project.id, debounced),
    enabled: ready,
    placeholderData: keepPreviousData,
    retry: false,
  })
  const treeErrors = saveError
    ? conditionErrors(saveError, 'audienceCondition')
    : conditionErrors(count.error, 'audienceCondition')
  return (
    <Fieldset legend="Audience">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end">
          <SegmentedControl
            aria-label="Audience type"
            value={value.audienceType}
            onChange={(audienceType) => onChange({ ...value, audienceType: audienceType as Audience['audienceType'] })}
            data={[
              { value: 'ALL', label: 'All contacts' },
              { value: 'SEGMENT', label: 'A segment' },
              { value: 'FILTERED', label: 'Filtered' },
            ]}
          />
          <Group gap={6} aria-live="polite">
            {count.isFetching && <Loader size="xs" aria-hidden />}
            <Text size="sm" data-testid="audience-count">
              {!ready
                ? 'Choose a segment to count recipients'
                : count.isError
                  ? 'Cannot count: see the audience'
                  : count.data
                    ? `${count.data.total.toLocaleString()} ${count.data.total === 1 ? 'recipient' : 'recipients'} now`
                    : 'Counting…'}
            </Text>
          </Group>
        </Group>
        {value.audienceType === 'SEGMENT' && (
          <Select
            label="Segment"
            required
            placeholder={segments.isPending ? 'Loading…' : 'Choose a segment'}
            value={value.segmentId}
            onChange={(segmentId) => onChange({ ...value, segmentId })}
            data={(segments.data ?? []).map((segment) => ({
              value: segment.id,
              label: `${segment.name} (${segment.memberCount.toLocaleString()})`,
            }))}
            nothingFoundMessage="No segments yet"
            error={saveError?.forField('segmentId')}
            maw={420}
          />
        )}
        {value.audienceType === 'FILTERED' && (
          <ConditionBuilder
            label="Audience condition"
            value={value.audienceCondition}
            onChange={(audienceCondition) => onChange({ ...value, audienceCondition })}
            errors={treeErrors}
          />
        )}
        {count.isError && Object.keys(treeErrors).length === 0 && (
          <Text size="sm" c="red" role="alert">
            {count.error.message}
          </Text>
        )}
        <Text size="xs" c="dimmed">
          {type === 'TRANSACTIONAL'
            ? 'Transactional campaigns also reach unsubscribed contacts; suppressed addresses never receive email.'
            : 'Only subscribed contacts receive marketing campaigns; suppressed addresses never do.'}
        </Text>
      </Stack>
    </Fieldset>
  )
}
