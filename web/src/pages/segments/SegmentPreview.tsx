import { Anchor, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { Link } from 'react-router'
import { useProject } from '../../api/project-context'
import { segmentQueries } from '../../api/segments'
import type { ConditionTree } from '../../components/conditions'

/**
 * The live member count and first matching contacts of the condition being edited, asked once typing pauses.
 * The query's error (a 422 at a filter) is the caller's to show at the filter, through `onError`'s value.
 */
export function useSegmentPreview(condition: ConditionTree | undefined, segmentId?: string) {
  const { project } = useProject()
  const [debounced] = useDebouncedValue(condition, 400)
  return useQuery({
    ...segmentQueries.preview(project.id, debounced, segmentId),
    enabled: debounced !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
  })
}

export function SegmentPreview({ preview }: { preview: ReturnType<typeof useSegmentPreview> }) {
  const result = preview.data
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="segment-preview-title">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="segment-preview-title">
          Matching contacts
        </Title>
        {preview.isFetching && <Loader size="xs" aria-label="Counting" />}
      </Group>
      <Text size="xl" fw={700} aria-live="polite" data-testid="segment-preview-count">
        {preview.isError ? '—' : result ? result.total.toLocaleString() : '…'}
      </Text>
      <Text size="xs" c="dimmed" mb="sm">
        {preview.isError
          ? 'Fix the condition to see who matches.'
          : 'contacts match now (subscribed or not). The newest ones:'}
      </Text>
      {result && !preview.isError && (
        <Stack gap={2} component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Newest matching contacts">
          {result.contacts.length === 0 && (
            <Text size="sm" c="dimmed" component="li">
              No contact matches yet.
            </Text>
          )}
          {result.contacts.map((contact) => (
            <li key={contact.id}>
              <Anchor component={Link} to={`/contacts/${contact.id}`} size="sm">
                {contact.email}
              </Anchor>
            </li>
          ))}
        </Stack>
      )}
    </Paper>
  )
}
