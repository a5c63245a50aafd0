import { Container, Paper, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'

/** The narrow, centred frame of every page reached without a session: login, signup and the mailed links. */
export function AuthFrame({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <Container size={440} py={80} component="main">
      <Title order={1} ta="center" mb="xs">
        Mailroom
      </Title>
      <Text ta="center" c="dimmed" mb="lg">
        {title}
      </Text>
      <Paper withBorder p="lg" radius="md">
        {children}
      </Paper>
      {footer && (
        <Text ta="center" size="sm" mt="md">
          {footer}
        </Text>
      )}
    </Container>
  )
}
