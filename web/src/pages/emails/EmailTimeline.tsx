import { Box, Group, Paper, Stack, Text, ThemeIcon } from '@mantine/core'
import type { TimelineEntry } from '../../api/types'
import { RelativeTime } from '../../components/RelativeTime'
import { type DetailLine, describeEntry, type EntryTone } from './timeline-entries'

/** Dark shades: the marks sit beside text and must stand out in both colour schemes. */
const toneColor: Record<EntryTone, string> = { good: 'teal.9', bad: 'red.9', waiting: 'yellow.9', neutral: 'gray.7' }

function Line({ line }: { line: DetailLine }) {
  return (
    <Group gap={6} wrap="nowrap" align="baseline">
      <Text component="dt" size="xs" c="dimmed" miw="max-content">
        {line.label}
      </Text>
      <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere' }}>
        {line.time ? (
          <>
            {new Date(line.value).toLocaleString()} (<RelativeTime at={line.value} />)
          </>
        ) : (
          line.value
        )}
      </Text>
    </Group>
  )
}

/**
 * The email's story, oldest first: an ordered list whose items each say what happened, when (relative, the exact
 * time on hover), and the evidence (the SMTP reply, the provider's report, person or machine).
 */
export function EmailTimeline({ history }: { history: TimelineEntry[] }) {
  return (
    <Stack component="ol" aria-label="Timeline" gap="xs" p={0} m={0}>
      {history.map((entry, index) => {
        const described = describeEntry(entry)
        return (
          // Entries have no id; their place in the story is stable for one answer.
          // biome-ignore lint/suspicious/noArrayIndexKey: the history is append-only and read whole.
          <Paper key={index} component="li" withBorder p="sm" style={{ listStyle: 'none' }}>
            <Group gap="sm" align="flex-start" wrap="nowrap">
              <ThemeIcon size={12} radius="xl" color={toneColor[described.tone]} mt={6} aria-hidden>
                <span />
              </ThemeIcon>
              <Box style={{ flex: 1, minWidth: 0 }}>
                <Group justify="space-between" gap="xs">
                  <Text fw={600} size="sm" data-testid="timeline-kind">
                    {described.title}
                  </Text>
                  <RelativeTime at={entry.at} />
                </Group>
                {described.summary && <Text size="sm">{described.summary}</Text>}
                {described.lines.length > 0 && (
                  <Stack component="dl" gap={2} mt={4} mb={0}>
                    {described.lines.map((line) => (
                      <Line key={line.label} line={line} />
                    ))}
                  </Stack>
                )}
              </Box>
            </Group>
          </Paper>
        )
      })}
    </Stack>
  )
}
