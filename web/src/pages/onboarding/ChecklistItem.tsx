import { Badge, Group, Paper, Title } from '@mantine/core'
import type { ReactNode } from 'react'

/** One onboarding step: its number, title, whether it is done, and what to do while it is not. */
export function ChecklistItem({
  step,
  title,
  done,
  children,
}: {
  step: number
  title: string
  done: boolean
  children: ReactNode
}) {
  const id = `setup-step-${step}`
  return (
    <Paper component="li" withBorder p="md" data-done={done}>
      <Group justify="space-between" mb={done ? 0 : 'sm'} wrap="nowrap">
        <Title order={2} size="h4" id={id}>
          {step}. {title}
        </Title>
        <Badge color={done ? 'teal.9' : 'gray.7'} variant={done ? 'filled' : 'outline'}>
          {done ? 'Done' : 'To do'}
        </Badge>
      </Group>
      {!done && children}
    </Paper>
  )
}
