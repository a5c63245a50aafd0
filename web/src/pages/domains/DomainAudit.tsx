import { Badge, Group, Paper, Stack, Text, Title } from '@mantine/core'
import type { Domain } from '../../api/types'
import { CopyValue } from '../../components/copy'

type Audit = NonNullable<Domain['audit']>
type Finding = Audit['findings'][number]
type FindingRecord = NonNullable<Finding['record']>

const severities = {
  error: { label: 'Error', color: 'red.9', rank: 0 },
  warning: { label: 'Warning', color: 'yellow.4', rank: 1 },
  info: { label: 'Info', color: 'blue.8', rank: 2 },
  ok: { label: 'OK', color: 'teal.9', rank: 3 },
} as const

/** What receivers will make of the domain, worst first, each with the record that fixes it. */
export function DomainAudit({ domain }: { domain: Domain }) {
  const headingId = `audit-${domain.id}`
  const { audit } = domain
  return (
    <Stack gap="xs" component="section" aria-labelledby={headingId}>
      <Group justify="space-between">
        <Title order={3} size="h5" id={headingId}>
          What receivers will see
        </Title>
        {audit && (
          <Text size="xs" c="dimmed">
            Audited {new Date(audit.checkedAt).toLocaleString()}
          </Text>
        )}
      </Group>
      {audit ? (
        <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
          {[...audit.findings]
            .sort((left, right) => severities[left.severity].rank - severities[right.severity].rank)
            .map((finding) => (
              <FindingItem key={`${finding.code} ${finding.reason}`} finding={finding} />
            ))}
        </Stack>
      ) : (
        <Text size="sm" c="dimmed">
          Not audited yet. Check DNS to see how receivers will judge mail from this domain.
        </Text>
      )}
    </Stack>
  )
}

function FindingItem({ finding }: { finding: Finding }) {
  const severity = severities[finding.severity]
  return (
    <Paper withBorder p="xs" component="li">
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <Badge color={severity.color} autoContrast miw={96} style={{ flexShrink: 0 }}>
          {severity.label}
        </Badge>
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Text size="sm">{finding.reason}</Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {finding.code}
          </Text>
          {finding.record && <RecordToPublish record={finding.record} code={finding.code} />}
        </Stack>
      </Group>
    </Paper>
  )
}

function RecordToPublish({ record, code }: { record: FindingRecord; code: string }) {
  const value = record.priority === undefined ? record.value : `${record.priority} ${record.value}`
  return (
    <Stack gap={2}>
      <Text size="xs" fw={600}>
        Publish this {record.type} record
      </Text>
      <Group gap={4} wrap="nowrap">
        <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
          {record.name}
        </Text>
        <CopyValue value={record.name} label={`${code} record name`} />
      </Group>
      <Group gap={4} wrap="nowrap">
        <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
          {value}
        </Text>
        <CopyValue value={value} label={`${code} record value`} />
      </Group>
    </Stack>
  )
}
