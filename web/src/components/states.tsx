import { Alert, Button, Center, Flex, Group, Loader, Stack, Text, Title } from '@mantine/core'
import type { UseQueryResult } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { ApiError } from '../api/client'

export function ErrorAlert({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const message = error instanceof Error ? error.message : String(error)
  const requestId = error instanceof ApiError ? error.requestId : undefined
  return (
    <Alert color="red" title={title} role="alert">
      <Text size="sm">{message}</Text>
      {requestId && (
        <Text size="xs" c="dimmed" mt={4}>
          Request id: {requestId}
        </Text>
      )}
    </Alert>
  )
}

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <Center mih={160} role="status" aria-live="polite">
      <Group gap="xs">
        <Loader size="sm" aria-hidden />
        <Text size="sm" c="dimmed">
          {label}…
        </Text>
      </Group>
    </Center>
  )
}

/** Loading, error (with a retry) or the data, for one query. */
export function QueryState<Data>({
  query,
  children,
  label,
}: {
  query: UseQueryResult<Data>
  children: (data: Data) => ReactNode
  label?: string
}) {
  if (query.isPending) return <Loading label={label} />
  if (query.error instanceof ApiError && query.error.status === 404) return <NotFound message={query.error.message} />
  if (query.isError)
    return (
      <Stack gap="xs">
        <ErrorAlert error={query.error} />
        <Group>
          <Button variant="default" size="xs" onClick={() => query.refetch()}>
            Try again
          </Button>
        </Group>
      </Stack>
    )
  return <>{children(query.data)}</>
}

/**
 * A record this project does not have: deleted, mistyped, or another project's (a link from a teammate in a
 * project this user is not in). Another try would not find it, so there is no retry. It stands in for the page
 * whose record it is, heading included, so its heading is the page's one h1.
 */
export function NotFound({ message }: { message: string }) {
  return (
    <Stack gap="xs" role="alert" data-testid="not-found">
      <Title order={1} size="h3">
        Not found
      </Title>
      <Text size="sm">
        {message}. It may have been deleted, or it belongs to another project: this link only opens in the project that
        holds it, for its members. Choose that project in the switcher above if you are one of them.
      </Text>
    </Stack>
  )
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <Stack
      align="center"
      gap="xs"
      py="xl"
      px="md"
      style={{ border: '1px dashed var(--mantine-color-default-border)', borderRadius: 8 }}
    >
      <Title order={3} size="h4">
        {title}
      </Title>
      {children && (
        <Text size="sm" c="dimmed" ta="center" maw={520}>
          {children}
        </Text>
      )}
      {action}
    </Stack>
  )
}

/**
 * A page's title and its actions: side by side, the actions below the title on a phone. A long title (a contact's
 * address) wraps anywhere rather than widening the page.
 */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Flex justify="space-between" align="center" gap="md" mb="md" wrap={{ base: 'wrap', sm: 'nowrap' }}>
      <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
        {title}
      </Title>
      <Group gap="xs">{children}</Group>
    </Flex>
  )
}
