import { Anchor, Button, Grid, Group, Paper, Select, Stack, Text, Textarea, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { ApiError, api } from '../../api/client'
import { useProject } from '../../api/project-context'
import { listSegments, segmentsKey } from '../../api/segments'
import type { CampaignCreated, CampaignInput } from '../../api/types'
import { EmailPreview } from '../../components/EmailPreview'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert, PageHeader } from '../../components/states'

type Audience = 'ALL' | 'SEGMENT'

/** A draft campaign to all subscribed contacts or to one segment; sending and scheduling come with its own page. */
export function NewCampaignPage() {
  const { project } = useProject()
  const [name, setName] = useState('')
  const [subject, setSubject] = useState('')
  const [from, setFrom] = useState('')
  const [body, setBody] = useState('<h1>Hello {{name ?? "there"}}</h1>\n<p>News from us.</p>')
  const [audience, setAudience] = useState<Audience>('ALL')
  const [segmentId, setSegmentId] = useState<string | null>(null)
  const [previewBody] = useDebouncedValue(body, 250)
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const segments = useQuery({
    queryKey: segmentsKey(project.id),
    queryFn: listSegments,
    enabled: audience === 'SEGMENT',
  })

  const create = useMutation({
    mutationFn: (input: CampaignInput) => api<CampaignCreated>('/campaigns', { method: 'POST', body: input }),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['project', project.id, 'campaigns'] })
      notifySuccess(`Draft “${created.data.name}” saved`)
      navigate('/campaigns')
    },
  })
  const error = create.error instanceof ApiError ? create.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({
      name,
      subject,
      from,
      body,
      type: 'MARKETING',
      audienceType: audience,
      ...(audience === 'SEGMENT' ? { segmentId } : {}),
    })
  }

  return (
    <>
      <Anchor component={Link} to="/campaigns" size="sm">
        ← All campaigns
      </Anchor>
      <form onSubmit={onSubmit} noValidate>
        <Stack mt="sm">
          <PageHeader title="New campaign">
            <Button type="submit" loading={create.isPending}>
              Save draft
            </Button>
          </PageHeader>
          {create.isError && (!error || error.general) && <ErrorAlert error={create.error} title="Not saved" />}
          <Grid gap="lg">
            <Grid.Col span={{ base: 12, md: 6 }}>
              <Stack gap="sm">
                <TextInput
                  label="Name"
                  required
                  value={name}
                  onChange={(e) => setName(e.currentTarget.value)}
                  error={error?.forField('name')}
                />
                <TextInput
                  label="Subject"
                  required
                  value={subject}
                  onChange={(e) => setSubject(e.currentTarget.value)}
                  error={error?.forField('subject')}
                />
                <TextInput
                  label="From address"
                  type="email"
                  required
                  placeholder="news@example.com"
                  value={from}
                  onChange={(e) => setFrom(e.currentTarget.value)}
                  error={error?.forField('from')}
                />
                <Group grow align="flex-start">
                  <Select
                    label="Audience"
                    value={audience}
                    allowDeselect={false}
                    onChange={(value) => value && setAudience(value as Audience)}
                    data={[
                      { value: 'ALL', label: 'All subscribed contacts' },
                      { value: 'SEGMENT', label: 'A segment' },
                    ]}
                    error={error?.forField('audienceType')}
                  />
                  {audience === 'SEGMENT' && (
                    <Select
                      label="Segment"
                      required
                      placeholder={segments.isPending ? 'Loading…' : 'Choose a segment'}
                      value={segmentId}
                      onChange={setSegmentId}
                      data={(segments.data ?? []).map((segment) => ({
                        value: segment.id,
                        label: `${segment.name} (${segment.memberCount.toLocaleString()})`,
                      }))}
                      nothingFoundMessage="No segments yet"
                      error={error?.forField('segmentId')}
                    />
                  )}
                </Group>
                <Textarea
                  label="HTML body"
                  required
                  autosize
                  minRows={12}
                  maxRows={28}
                  value={body}
                  onChange={(e) => setBody(e.currentTarget.value)}
                  error={error?.forField('body')}
                  styles={{ input: { fontFamily: 'ui-monospace, monospace', fontSize: 13 } }}
                  spellCheck={false}
                />
              </Stack>
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 6 }}>
              <Paper withBorder p="xs" component="section" aria-label="Preview">
                <Text size="xs" c="dimmed">
                  Subject
                </Text>
                <Text size="sm" fw={600} mb="xs">
                  {subject || '(no subject)'}
                </Text>
                <EmailPreview html={previewBody} title="Preview of the campaign body" height={520} />
              </Paper>
            </Grid.Col>
          </Grid>
        </Stack>
      </form>
    </>
  )
}
