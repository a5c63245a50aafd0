import { Anchor, Button, Container, Group, Stack, Title } from '@mantine/core'
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
        {/* A page's code that failed to download (a dropped connection, a newer deploy) loads again with the page. */}
        <Group>
          <Button variant="default" onClick={() => window.location.reload()}>
            Try again
          </Button>
          <Anchor component={Link} to="/">
            Back to the dashboard
          </Anchor>
        </Group>
      </Stack>
    </Container>
  )
}
