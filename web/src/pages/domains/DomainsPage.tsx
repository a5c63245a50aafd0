import { Badge, Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { ApiError } from '../../api/client'
import { addDomain, deleteDomain, domainQueries, verifyDomain } from '../../api/domains'
import { useProject } from '../../api/project-context'
import type { DnsRecord, Domain } from '../../api/types'
import { CopyValue } from '../../components/copy'
import { EmptyState, ErrorAlert, PageHeader, QueryState } from '../../components/states'
import { DomainAudit } from './DomainAudit'
import { ReturnPathForm } from './ReturnPathForm'

export function DomainsPage() {
  const { project } = useProject()
  const domains = useQuery({
    ...domainQueries.list(project.id),
    // Pending domains are re-checked by the server; keep their status live while the page is open.
    refetchInterval: (query) => (query.state.data?.some((domain) => !domain.verified) ? 15_000 : false),
  })
  return (
    <>
      <PageHeader title="Sender domains" />
      <Stack gap="lg" maw={1100}>
        <AddDomainForm />
        <QueryState query={domains} label="Loading domains">
          {(list) =>
            list.length === 0 ? (
              <EmptyState title="No sender domains yet">
                Add the domain you send from. Mailroom lists the DNS records to publish and checks them for you.
              </EmptyState>
            ) : (
              list.map((domain) => <DomainCard key={domain.id} domain={domain} />)
            )
          }
        </QueryState>
      </Stack>
    </>
  )
}

export function AddDomainForm() {
  const { project } = useProject()
  const [domain, setDomain] = useState('')
  const queryClient = useQueryClient()
  const add = useMutation({
    mutationFn: (name: string) => addDomain(project.id, name),
    onSuccess: () => {
      setDomain('')
      return queryClient.invalidateQueries({ queryKey: domainQueries.all(project.id) })
    },
  })
  const error = add.error instanceof ApiError ? add.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    add.mutate(domain)
  }
  return (
    <Paper withBorder p="md">
      <form onSubmit={onSubmit} noValidate>
        <Group align="flex-start">
          <TextInput
            label="Domain"
            placeholder="example.com"
            required
            value={domain}
            onChange={(event) => setDomain(event.currentTarget.value)}
            error={error?.forField('domain') ?? (error?.general ? error.message : undefined)}
            w={320}
          />
          <Button type="submit" mt={25} loading={add.isPending}>
            Add domain
          </Button>
        </Group>
      </form>
    </Paper>
  )
}

function StatusBadge({ verified }: { verified: boolean }) {
  return (
    <Badge color={verified ? 'teal.9' : 'yellow.4'} autoContrast>
      {verified ? 'Verified' : 'Pending'}
    </Badge>
  )
}

export function DomainCard({ domain }: { domain: Domain }) {
  const { project } = useProject()
  const { queryKey } = domainQueries.list(project.id)
  const queryClient = useQueryClient()
  const verify = useMutation({
    mutationFn: () => verifyDomain(project.id, domain.id),
    onSuccess: (updated) =>
      queryClient.setQueryData(queryKey, (list) => list?.map((d) => (d.id === updated.id ? updated : d))),
  })
  const remove = useMutation({
    mutationFn: () => deleteDomain(project.id, domain.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey }),
  })
  const checked = domain.lastCheckedAt ? new Date(domain.lastCheckedAt).toLocaleString() : 'not yet'
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={`domain-${domain.id}`}>
      <Group justify="space-between" mb="sm">
        <Group gap="sm">
          <Title order={2} size="h4" id={`domain-${domain.id}`}>
            {domain.domain}
          </Title>
          <StatusBadge verified={domain.verified} />
        </Group>
        <Group gap="xs">
          <Text size="xs" c="dimmed" aria-live="polite">
            Last checked: {checked}
          </Text>
          <Button size="xs" variant="default" loading={verify.isPending} onClick={() => verify.mutate()}>
            Check DNS now
          </Button>
          <Button
            size="xs"
            variant="outline"
            color="red.9"
            loading={remove.isPending}
            onClick={() => {
              if (window.confirm(`Remove ${domain.domain}? Mail from it will no longer be accepted.`)) remove.mutate()
            }}
          >
            Remove
          </Button>
        </Group>
      </Group>
      {verify.isError && <ErrorAlert error={verify.error} title="The check failed" />}
      {remove.isError && <ErrorAlert error={remove.error} title="Could not remove the domain" />}
      <Text size="sm" c="dimmed" mb="xs">
        Publish these records at your DNS provider. Required records verify the domain; the others are recommended.
      </Text>
      <Table.ScrollContainer minWidth={800}>
        <Table verticalSpacing="xs" aria-label={`DNS records for ${domain.domain}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col" w={130}>
                Purpose
              </Table.Th>
              <Table.Th scope="col" w={60}>
                Type
              </Table.Th>
              <Table.Th scope="col" w="30%">
                Name
              </Table.Th>
              <Table.Th scope="col">Value</Table.Th>
              <Table.Th scope="col" w={110}>
                Status
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {domain.records.map((record) => (
              <RecordRow key={`${record.purpose}-${record.name}-${record.type}`} record={record} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Stack gap="lg" mt="md">
        <DomainAudit domain={domain} />
        <ReturnPathForm domain={domain} />
      </Stack>
    </Paper>
  )
}

function RecordRow({ record }: { record: DnsRecord }) {
  const value = record.priority === undefined ? record.value : `${record.priority} ${record.value}`
  return (
    <Table.Tr>
      <Table.Td>
        {record.purpose}
        {!record.required && (
          <Text span size="xs" c="dimmed">
            {' '}
            (recommended)
          </Text>
        )}
      </Table.Td>
      <Table.Td>{record.type}</Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
            {record.name}
          </Text>
          <CopyValue value={record.name} label={`${record.purpose} record name`} />
        </Group>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }} lineClamp={3}>
            {value}
          </Text>
          <CopyValue value={value} label={`${record.purpose} record value`} />
        </Group>
      </Table.Td>
      <Table.Td>
        <Badge color={record.status === 'verified' ? 'teal.9' : 'gray.7'}>{record.status}</Badge>
      </Table.Td>
    </Table.Tr>
  )
}
