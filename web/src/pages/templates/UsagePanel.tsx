import { List, Paper, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import { templateQueries } from '../../api/templates'
import { QueryState } from '../../components/states'

/** Where the template is used (GET /templates/:id/usage): deleting or changing it affects these. */
export function UsagePanel({ id }: { id: string }) {
  const { project } = useProject()
  const usage = useQuery(templateQueries.usage(project.id, id))
  return (
    <Paper withBorder p="xs" component="section" aria-labelledby="usage-heading">
      <Title order={2} size="h6" id="usage-heading" mb={4}>
        Used by
      </Title>
      <QueryState query={usage} label="Loading usage">
        {(data) => {
          const uses = [
            ...data.workflows.map((item) => ({ ...item, kind: 'Workflow' })),
            ...data.campaigns.map((item) => ({ ...item, kind: 'Campaign' })),
          ]
          return uses.length === 0 ? (
            <Text size="xs" c="dimmed">
              No campaign or workflow uses this template.
            </Text>
          ) : (
            <List size="sm">
              {uses.map((use) => (
                <List.Item key={`${use.kind}-${use.id}`}>
                  {use.kind}: {use.name}
                </List.Item>
              ))}
            </List>
          )
        }}
      </QueryState>
    </Paper>
  )
}
