import { Anchor, Button, FileInput, Group, Paper, Stack, Text } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { ApiError } from '../../api/client'
import { contactJobQueries, contactQueries, importContacts } from '../../api/contacts'
import { useProject } from '../../api/project-context'
import { ErrorAlert, PageHeader } from '../../components/states'
import { ImportProgress } from './ImportProgress'
import { jobDone, useJob } from './use-job'

/** CSV upload: the job's id goes into the address, so a reload keeps following the same import. */
export function ImportPage() {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const [params, setParams] = useSearchParams()
  const jobId = params.get('job') ?? undefined
  const [file, setFile] = useState<File | null>(null)
  const upload = useMutation({
    mutationFn: (csv: File) => importContacts(project.id, csv),
    onSuccess: (accepted) => setParams({ job: accepted.jobId }),
  })
  const job = useJob(contactJobQueries.import(project.id, jobId ?? ''), jobId !== undefined)
  const finished = jobDone(job.data)
  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: contactQueries.all(project.id) })
  }, [finished, queryClient, project.id])

  const error = upload.error instanceof ApiError ? upload.error : undefined
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (file) upload.mutate(file)
  }

  return (
    <Stack gap="md" maw={900}>
      <Anchor component={Link} to="/contacts" size="sm">
        ← All contacts
      </Anchor>
      <PageHeader title="Import contacts" />
      <Paper withBorder p="md" component="form" onSubmit={submit} noValidate aria-label="Upload a CSV file">
        <Stack gap="sm">
          <Text size="sm">
            The first row names the columns. An <code>email</code> column is required; <code>subscribed</code> (true or
            false) is optional; every other column becomes a custom field. Existing contacts are updated. Up to 5 MB.
          </Text>
          <Group align="flex-end">
            <FileInput
              label="CSV file"
              placeholder="Choose a .csv file"
              accept=".csv,text/csv"
              value={file}
              onChange={setFile}
              clearable
              clearButtonProps={{ 'aria-label': 'Clear the file' }}
              error={error?.forField('file')}
              w={360}
            />
            <Button type="submit" disabled={!file} loading={upload.isPending}>
              Import
            </Button>
          </Group>
          {upload.isError && (!error || error.general) && <ErrorAlert error={upload.error} title="Not imported" />}
        </Stack>
      </Paper>
      {jobId && (
        <ImportProgress
          job={job.data}
          error={job.error}
          onAnother={() => {
            setFile(null)
            upload.reset()
            setParams({})
          }}
        />
      )}
    </Stack>
  )
}
