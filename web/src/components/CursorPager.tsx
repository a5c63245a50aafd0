import { Button, Group, Text } from '@mantine/core'

/** Previous/next over a cursor list: the caller keeps the cursors of the pages already seen. */
export function CursorPager({
  page,
  hasMore,
  onPrevious,
  onNext,
  busy,
}: {
  page: number
  hasMore: boolean
  onPrevious(): void
  onNext(): void
  busy?: boolean
}) {
  return (
    <Group justify="flex-end" gap="xs" mt="sm" role="navigation" aria-label="Pages">
      <Text size="sm" c="dimmed" aria-live="polite">
        Page {page}
      </Text>
      <Button variant="default" size="xs" disabled={page === 1 || busy} onClick={onPrevious}>
        Previous
      </Button>
      <Button variant="default" size="xs" disabled={!hasMore || busy} onClick={onNext}>
        Next
      </Button>
    </Group>
  )
}
