import { Badge, Code, Group, List, Stack, Text } from '@mantine/core'
import type { PresendFinding } from '../../api/types'

const severityLabel: Record<PresendFinding['severity'], { label: string; color: string }> = {
  error: { label: 'Error', color: 'red.9' },
  // Light enough for dark text: white on any yellow fails the contrast check.
  warning: { label: 'Warning', color: 'yellow.3' },
}

/** What the pre-send check found, errors first (as the API orders them), each with a few of its examples. */
export function PresendFindings({ findings }: { findings: PresendFinding[] }) {
  if (findings.length === 0) {
    return (
      <Text size="sm" data-testid="presend-clean">
        Nothing to fix: the content passes every check.
      </Text>
    )
  }
  return (
    <List spacing="sm" listStyleType="none" data-testid="presend-findings">
      {findings.map((finding) => (
        <List.Item key={finding.code} data-code={finding.code}>
          <Stack gap={2}>
            <Group gap="xs">
              <Badge color={severityLabel[finding.severity].color} autoContrast>
                {severityLabel[finding.severity].label}
              </Badge>
              <Text size="xs" c="dimmed">
                {finding.code} · {finding.field}
              </Text>
            </Group>
            <Text size="sm">{finding.message}</Text>
            {finding.examples && (
              <Group gap={4}>
                {finding.examples.map((example) => (
                  <Code key={example}>{example}</Code>
                ))}
              </Group>
            )}
          </Stack>
        </List.Item>
      ))}
    </List>
  )
}
