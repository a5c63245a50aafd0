import { Button, Group, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core'
import type { ContactImport } from '../../api/types'
import { ColumnHeads } from '../../components/ColumnHeads'
import { StatCards } from '../../components/StatCards'
import { ErrorAlert, Loading } from '../../components/states'

const stateLabels: Record<ContactImport['state'], string> = {
  queued: 'Waiting to start',
  running: 'Importing',
  completed: 'Import finished',
  failed: 'Import failed',
}

/** The job's own progress, its totals, and the rows it could not import. */
export function ImportProgress({
  job,
  error,
  onAnother,
}: {
  job: ContactImport | undefined
  error: unknown
  onAnother(): void
}) {
  if (error) return <ErrorAlert error={error} title="Could not read the import's progress" />
  if (!job) return <Loading label="Starting the import" />
  const done = job.state === 'completed' || job.state === 'failed'
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="import-status">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4" id="import-status" aria-live="polite">
            {stateLabels[job.state]}
          </Title>
          {done && (
            <Button variant="default" size="xs" onClick={onAnother}>
              Import another file
            </Button>
          )}
        </Group>
        <Progress
          value={job.progress}
          size="lg"
          aria-label="Import progress"
          color={job.state === 'failed' ? 'red.9' : undefined}
          animated={!done}
        />
        <Text size="sm" c="dimmed">
          {job.progress}% · {job.processedRows.toLocaleString()} of {job.totalRows.toLocaleString()} rows
        </Text>
        {job.error && <ErrorAlert error={new Error(job.error)} title="The file could not be imported" />}
        {done && (
          <StatCards
            label="Import totals"
            figures={[
              { label: 'Rows', value: job.totalRows },
              { label: 'Created', value: job.created },
              { label: 'Updated', value: job.updated },
              { label: 'Failed', value: job.failed },
            ]}
          />
        )}
        {done && job.errors.length > 0 && <RowErrors job={job} />}
      </Stack>
    </Paper>
  )
}

function RowErrors({ job }: { job: ContactImport }) {
  return (
    <section aria-labelledby="row-errors">
      <Title order={3} size="h5" mb="xs" id="row-errors">
        Rows not imported
      </Title>
      {job.failed > job.errors.length && (
        <Text size="sm" c="dimmed" mb="xs">
          The first {job.errors.length.toLocaleString()} of {job.failed.toLocaleString()} are listed.
        </Text>
      )}
      <Paper withBorder mah={360} style={{ overflow: 'auto' }} tabIndex={0} aria-label="Rows not imported, scrollable">
        <Table aria-labelledby="row-errors" stickyHeader>
          <ColumnHeads columns={['Row', 'Email', 'Problem']} />
          <Table.Tbody>
            {job.errors.map((row) => (
              <Table.Tr key={row.row}>
                <Table.Td>{row.row}</Table.Td>
                <Table.Td>{row.email ?? '—'}</Table.Td>
                <Table.Td>{row.message}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
    </section>
  )
}
