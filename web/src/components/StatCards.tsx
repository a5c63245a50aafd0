import { Paper, SimpleGrid, Text } from '@mantine/core'

/** A row of labelled numbers (a grid of them on a narrow screen), as a list so a screen reader announces how many there are. */
export function StatCards({ figures, label }: { figures: { label: string; value: number }[]; label: string }) {
  return (
    <SimpleGrid cols={{ base: 2, xs: 3, md: figures.length }} spacing="sm" role="list" aria-label={label}>
      {figures.map((figure) => (
        <Paper key={figure.label} withBorder p="sm" role="listitem">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {figure.label}
          </Text>
          <Text size="xl" fw={700}>
            {figure.value.toLocaleString()}
          </Text>
        </Paper>
      ))}
    </SimpleGrid>
  )
}
