import { Anchor, Button, Group, Paper, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery } from '@tanstack/react-query'
import { billingQueries, openBillingSession } from '../../api/billing'
import type { BillingConsumption, Project } from '../../api/types'
import { ErrorAlert, QueryState } from '../../components/states'
import { TableScroll } from '../../components/TableFrame'
import { canAdminister } from './roles'
import { canSubscribe, SubscriptionStatus } from './SubscriptionStatus'

function money(minor: number, currency: string): string {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(minor / 100)
}

/** Subscription, payment portal and invoices: shown only when the server has Stripe configured (`/config`). */
export function StripeBilling({ project, consumption }: { project: Project; consumption?: BillingConsumption }) {
  const invoices = useQuery({ ...billingQueries.invoices(project.id), retry: false })
  // Both answer a Stripe page to open; the browser leaves the dashboard for it.
  const open = useMutation({
    mutationFn: (page: 'checkout' | 'billing-portal') => openBillingSession(project.id, page),
    onSuccess: ({ url }) => window.location.assign(url),
  })
  const subscription = consumption?.subscription
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="billing-subscription">
      <Title order={2} size="h4" mb="xs" id="billing-subscription">
        Subscription
      </Title>
      <SubscriptionStatus subscription={subscription} />
      {open.isError && <ErrorAlert error={open.error} title="Stripe could not be opened" />}
      {canAdminister(project) && (
        <Group mb="md">
          {canSubscribe(subscription) && (
            <Button loading={open.isPending && open.variables === 'checkout'} onClick={() => open.mutate('checkout')}>
              Subscribe
            </Button>
          )}
          <Button
            variant="default"
            loading={open.isPending && open.variables === 'billing-portal'}
            onClick={() => open.mutate('billing-portal')}
          >
            Manage payment and plan
          </Button>
        </Group>
      )}
      <Title order={3} size="h5" mb="xs">
        Invoices
      </Title>
      <QueryState query={invoices} label="Loading invoices">
        {({ invoices: list }) =>
          list.length === 0 ? (
            <Text size="sm" c="dimmed">
              No invoices yet.
            </Text>
          ) : (
            <TableScroll minWidth={480}>
              <Table aria-label="Invoices">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Number</Table.Th>
                    <Table.Th scope="col">Date</Table.Th>
                    <Table.Th scope="col">Total</Table.Th>
                    <Table.Th scope="col">Status</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((invoice) => (
                    <Table.Tr key={invoice.id}>
                      <Table.Td>
                        {invoice.hostedInvoiceUrl ? (
                          <Anchor href={invoice.hostedInvoiceUrl} target="_blank" rel="noreferrer">
                            {invoice.number ?? invoice.id}
                          </Anchor>
                        ) : (
                          (invoice.number ?? invoice.id)
                        )}
                      </Table.Td>
                      <Table.Td>{new Date(invoice.created).toLocaleDateString()}</Table.Td>
                      <Table.Td>{money(invoice.total, invoice.currency)}</Table.Td>
                      <Table.Td>{invoice.paid ? 'Paid' : (invoice.status ?? 'Open')}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroll>
          )
        }
      </QueryState>
    </Paper>
  )
}
