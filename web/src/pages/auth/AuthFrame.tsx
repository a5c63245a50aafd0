import { Container, Group, Paper, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { ColorSchemeSwitch } from '../../components/ColorSchemeSwitch'

/**
 * The narrow, centred frame of every page reached without a session: login, signup and the mailed links. The page's
 * title is its one h1; the product's name above it is not a heading.
 */
export function AuthFrame({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <Container size={440} py={80} component="main">
      <Text ta="center" fz={28} fw={700} mb={4}>
        Mailroom
      </Text>
      <Title order={1} ta="center" size="h4" fw={500} mb="lg">
        {title}
      </Title>
      <Paper withBorder p="lg" radius="md">
        {children}
      </Paper>
      {footer && (
        <Text ta="center" size="sm" mt="md">
          {footer}
        </Text>
      )}
      <Group justify="center" mt="xl">
        <ColorSchemeSwitch />
      </Group>
    </Container>
  )
}
