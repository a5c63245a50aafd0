import { Badge, Button, Group, NumberInput, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { billingQueries, saveBillingLimits } from '../../api/billing'
import { ApiError } from '../../api/client'
import { configQuery } from '../../api/config'
import { useProject } from '../../api/project-context'
import type { BillingConsumption, BillingLimits, BillingLimitsInput, Project } from '../../api/types'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert, QueryState } from '../../components/states'
import { TableScroll } from '../../components/TableFrame'
import { canAdminister } from './roles'
import { StripeBilling } from './StripeBilling'

type Category = keyof BillingLimitsInput

const categories: { key: Category; label: string }[] = [
  { key: 'transactional', label: 'Transactional' },
  { key: 'campaigns', label: 'Campaigns' },
  { key: 'workflows', label: 'Workflows' },
  { key: 'inbound', label: 'Inbound' },
]

export function BillingPage() {
  const { project } = useProject()
  const limits = useQuery(billingQueries.limits(project.id))
  const consumption = useQuery(billingQueries.consumption(project.id))
  const config = useQuery(configQuery)
  return (
    <Stack gap="lg" maw={900}>
      <Paper withBorder p="lg" component="section" aria-labelledby="billing-usage">
        <Title order={2} size="h4" mb="xs" id="billing-usage">
          This month's emails
        </Title>
        <QueryState query={consumption} label="Loading consumption">
          {(usage) => (
            <QueryState query={limits} label="Loading caps">
              {(caps) => <UsageTable usage={usage} caps={caps} />}
            </QueryState>
          )}
        </QueryState>
      </Paper>
      <QueryState query={limits} label="Loading caps">
        {(caps) => <CapsForm project={project} caps={caps} />}
      </QueryState>
      {config.data?.billing ? (
        <StripeBilling project={project} consumption={consumption.data} />
      ) : (
        config.isSuccess && (
          <Text size="sm" c="dimmed">
            Payments are not enabled on this server. Caps work without them.
          </Text>
        )
      )}
    </Stack>
  )
}

function UsageTable({ usage, caps }: { usage: BillingConsumption; caps: BillingLimits }) {
  return (
    <>
      <Text size="sm" c="dimmed" mb="sm">
        Period {usage.period.start} to {usage.period.end}: {usage.usage.total.toLocaleString()} emails in all.
      </Text>
      <TableScroll minWidth={480}>
        <Table verticalSpacing="sm" aria-label="Consumption by category">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Category</Table.Th>
              <Table.Th scope="col">Sent</Table.Th>
              <Table.Th scope="col">Cap</Table.Th>
              <Table.Th scope="col" w="35%">
                Of the cap
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {categories.map(({ key, label }) => {
              const state = caps[key]
              const record = usage.usage.records.find((entry) => entry.category === key)
              const percentage = record?.percentage ?? state.percentage
              return (
                <Table.Tr key={key}>
                  <Table.Th scope="row">{label}</Table.Th>
                  <Table.Td>{(record?.usage ?? state.usage).toLocaleString()}</Table.Td>
                  <Table.Td>{state.limit === null ? 'No cap' : state.limit.toLocaleString()}</Table.Td>
                  <Table.Td>
                    {state.limit === null ? (
                      <Text size="sm" c="dimmed">
                        —
                      </Text>
                    ) : (
                      <Group gap="xs" wrap="nowrap">
                        <Progress
                          value={Math.min(percentage, 100)}
                          color={state.isBlocked ? 'red.9' : state.isWarning ? 'yellow.6' : 'blue'}
                          style={{ flex: 1 }}
                          aria-label={`${label}: ${percentage}% of the cap`}
                        />
                        <Text size="sm" w={48} ta="right">
                          {percentage}%
                        </Text>
                        {state.isBlocked ? (
                          <Badge color="red.9">Cap reached</Badge>
                        ) : (
                          state.isWarning && (
                            <Badge color="yellow.4" autoContrast>
                              Near the cap
                            </Badge>
                          )
                        )}
                      </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              )
            })}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </>
  )
}

function CapsForm({ project, caps }: { project: Project; caps: BillingLimits }) {
  const initial = Object.fromEntries(categories.map(({ key }) => [key, caps[key].limit])) as BillingLimitsInput
  const [values, setValues] = useState<BillingLimitsInput>(initial)
  const queryClient = useQueryClient()
  const editable = canAdminister(project)
  const save = useMutation({
    mutationFn: (body: BillingLimitsInput) => saveBillingLimits(project.id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(billingQueries.limits(project.id).queryKey, updated)
      notifySuccess('Monthly caps saved.')
    },
  })
  const error = save.error instanceof ApiError ? save.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(values)
  }
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="billing-caps">
      <Title order={2} size="h4" mb="xs" id="billing-caps">
        Monthly caps
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        A send beyond a category's cap is refused, and a campaign whose audience would pass it does not start. Leave a
        field empty for no cap; 0 stops the category.
        {!editable && ' Only admins and owners can change the caps.'}
      </Text>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {save.isError && (!error || error.general) && <ErrorAlert error={save.error} title="Caps not saved" />}
          <Group grow align="flex-start">
            {categories.map(({ key, label }) => (
              <NumberInput
                key={key}
                label={`${label} cap`}
                placeholder="No cap"
                min={0}
                allowDecimal={false}
                allowNegative={false}
                thousandSeparator=","
                disabled={!editable}
                value={values[key] ?? ''}
                onChange={(value) =>
                  setValues((current) => ({ ...current, [key]: typeof value === 'number' ? value : null }))
                }
                error={error?.forField(key)}
              />
            ))}
          </Group>
          {editable && (
            <Button type="submit" loading={save.isPending} style={{ alignSelf: 'flex-start' }}>
              Save caps
            </Button>
          )}
        </Stack>
      </form>
    </Paper>
  )
}
