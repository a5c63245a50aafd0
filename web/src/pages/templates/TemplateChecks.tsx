import { Paper, Stack, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import { templateQueries } from '../../api/templates'
import { QueryState } from '../../components/states'
import { PresendFindings } from '../campaigns/PresendFindings'

/**
 * The saved template as the pre-send check sees it (GET /templates/:id/check). Nothing here stops a save: an
 * error would stop a campaign made from the template, until fixed or an owner sends it anyway.
 */
export function TemplateChecks({ id }: { id: string }) {
  const { project } = useProject()
  const check = useQuery(templateQueries.check(project.id, id))
  return (
    <Paper withBorder p="xs" component="section" aria-labelledby="checks-heading" data-testid="template-checks">
      <Title order={2} size="h6" id="checks-heading" mb={4}>
        Pre-send check
      </Title>
      <QueryState query={check} label="Checking the template">
        {(data) => (
          <Stack gap="xs">
            {data.findings.length > 0 && (
              <Text size="xs" c="dimmed">
                Warnings about the saved template: they never stop a save, but a campaign made from it is not sent while
                it has errors.
              </Text>
            )}
            <PresendFindings findings={data.findings} />
          </Stack>
        )}
      </QueryState>
    </Paper>
  )
}
