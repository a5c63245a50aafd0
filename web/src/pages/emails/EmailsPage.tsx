import { Button, Group, MultiSelect, Select, Stack, Text, TextInput } from '@mantine/core'
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query'
import { type FormEvent, useMemo, useState } from 'react'
import { useNavigate } from 'react-router'
import { type EmailFilters, emailQueries } from '../../api/emails'
import { useProject } from '../../api/project-context'
import type { EmailSummary } from '../../api/types'
import { EmptyState, PageHeader, QueryState } from '../../components/states'
import { EmailRows } from './EmailRows'
import { emailStatuses, sourceLabels } from './email-labels'

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const hourMs = 3_600_000

type Source = EmailSummary['sourceType']
const isSource = (value: string | null): value is Source => value !== null && value in sourceLabels

/**
 * The API reads at most 31 days at a time (a busy project's month is already millions of emails); 30 leaves room
 * for the browser's clock being ahead of the server's.
 */
const periods = { '1': 'Last hour', '24': 'Last 24 hours', '168': 'Last 7 days', '720': 'Last 30 days' } as const
type Period = keyof typeof periods

/** The largest total the API counts; more are "10,000 or more". */
const countedAtMost = 10_000

function totalText(total: number): string {
  if (total >= countedAtMost) return `${countedAtMost.toLocaleString()} or more emails`
  return `${total.toLocaleString()} ${total === 1 ? 'email' : 'emails'}`
}

/**
 * The project's emails, newest first: by recipient, status, source and time; "Load more" appends the next page. An
 * email id pasted into the search box opens that email at once (the on-call "was it sent?").
 */
export function EmailsPage() {
  const { project } = useProject()
  const navigate = useNavigate()
  const [search, setSearch] = useState('')
  const [recipient, setRecipient] = useState('')
  const [statuses, setStatuses] = useState<string[]>([])
  const [source, setSource] = useState<Source | null>(null)
  const [period, setPeriod] = useState<Period>('168')
  // Fixed when the period is chosen, so loading more does not shift the window (and the query key stays stable).
  const startDate = useMemo(() => new Date(Date.now() - Number(period) * hourMs).toISOString(), [period])
  const filters: EmailFilters = {
    limit: 25,
    recipient: recipient || undefined,
    status: statuses.length > 0 ? statuses.join(',') : undefined,
    sourceType: source ?? undefined,
    startDate,
  }
  const list = useInfiniteQuery({ ...emailQueries.list(project.id, filters), placeholderData: keepPreviousData })
  const filtered = Boolean(recipient) || statuses.length > 0 || source !== null

  const jumpIfId = (value: string) => {
    const id = value.trim()
    if (!uuid.test(id)) return false
    navigate(`/emails/${id.toLowerCase()}`)
    return true
  }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!jumpIfId(search)) setRecipient(search.trim())
  }

  return (
    <>
      <PageHeader title="Emails">
        {list.data && (
          <Text size="sm" c="dimmed" aria-live="polite" data-testid="email-total">
            {totalText(list.data.pages[0]?.total ?? 0)}
          </Text>
        )}
      </PageHeader>
      <Group mb="md" align="flex-end" component="form" role="search" aria-label="Emails" onSubmit={submit}>
        <TextInput
          label="Recipient or email id"
          description="An address, matched whole; an email id opens that email"
          placeholder="ada@example.com"
          type="search"
          value={search}
          onChange={(event) => {
            const value = event.currentTarget.value
            setSearch(value)
            // A pasted id opens at once; an address waits for Enter (it is matched whole).
            if (!jumpIfId(value) && value === '') setRecipient('')
          }}
          w={{ base: '100%', xs: 340 }}
        />
        <Button type="submit" variant="default">
          Search
        </Button>
      </Group>
      <Group mb="md" align="flex-end">
        <MultiSelect
          label="Status"
          placeholder={statuses.length ? undefined : 'Every status'}
          data={emailStatuses}
          value={statuses}
          onChange={setStatuses}
          clearable
          w={{ base: '100%', xs: 320 }}
        />
        <Select
          label="Source"
          placeholder="Every source"
          value={source}
          onChange={(value) => setSource(isSource(value) ? value : null)}
          clearable
          data={Object.entries(sourceLabels).map(([value, label]) => ({ value, label }))}
          w={200}
        />
        <Select
          label="Period"
          value={period}
          allowDeselect={false}
          onChange={(value) => value && setPeriod(value as Period)}
          data={Object.entries(periods).map(([value, label]) => ({ value, label }))}
          w={200}
        />
      </Group>
      <QueryState query={list} label="Loading emails">
        {(data) => {
          const emails: EmailSummary[] = data.pages.flatMap((page) => page.data)
          if (emails.length === 0) {
            return (
              <EmptyState title={filtered ? 'No emails match' : 'No emails in this period'}>
                {filtered
                  ? 'Try another address, status or source, or a longer period.'
                  : 'Emails sent through the API, the SMTP relay, campaigns and workflows appear here.'}
              </EmptyState>
            )
          }
          return (
            <Stack gap="sm">
              <EmailRows emails={emails} label="Emails" busy={list.isFetching} />
              {list.hasNextPage && (
                <Group justify="center">
                  <Button variant="default" loading={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
                    Load more
                  </Button>
                </Group>
              )}
            </Stack>
          )
        }}
      </QueryState>
    </>
  )
}
