import { Anchor, Container, Stack, Title } from '@mantine/core'
import { Link, useRouteError } from 'react-router'
import { ErrorAlert } from './states'

export function RouteError() {
  const error = useRouteError()
  return (
    <Container size="sm" py="xl">
      <Stack>
        <Title order={1} size="h2">
          This page could not be shown
        </Title>
        <ErrorAlert error={error} />
        <Anchor component={Link} to="/">
          Back to the dashboard
        </Anchor>
      </Stack>
    </Container>
  )
}
