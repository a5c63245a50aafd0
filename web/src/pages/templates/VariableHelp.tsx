import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { contactQueries } from '../../api/contacts'
import { useProject } from '../../api/project-context'

/** What every send knows about its recipient (render.ts `renderScope`), besides the contact's data. */
const builtIn = [
  { name: 'email', hint: 'the address' },
  { name: 'id', hint: 'the contact id' },
  { name: 'unsubscribeUrl', hint: 'one-click unsubscribe' },
  { name: 'manageUrl', hint: 'subscription settings' },
] as const

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/

/** `data.plan`, or `data["first name"]` for a key that is not a Liquid identifier. */
function dataVariable(field: string): string {
  return identifier.test(field) ? `data.${field}` : `data[${JSON.stringify(field)}]`
}

/** The variables a template can use, from the contact fields the project has; a click inserts one. */
export function VariableHelp({ onInsert }: { onInsert(text: string): void }) {
  const { project } = useProject()
  const fields = useQuery(contactQueries.fields(project.id))
  const custom = (fields.data?.fields ?? []).filter((field) => !field.standard)
  const chip = (variable: string, hint?: string) => (
    <Button
      key={variable}
      size="compact-xs"
      variant="light"
      ff="monospace"
      onClick={() => onInsert(`{{ ${variable} }}`)}
      aria-label={`Insert {{ ${variable} }}${hint ? `, ${hint}` : ''}`}
      title={hint}
    >
      {`{{ ${variable} }}`}
    </Button>
  )
  return (
    <Paper withBorder p="xs" component="section" aria-labelledby="variables-heading">
      <Stack gap={6}>
        <Title order={2} size="h6" id="variables-heading">
          Variables
        </Title>
        <Text size="xs" c="dimmed">
          Click to insert at the cursor. Add a fallback with <code>?? "text"</code>.
        </Text>
        <Group gap={4}>{builtIn.map((variable) => chip(variable.name, variable.hint))}</Group>
        <Text size="xs" fw={600} mt={4}>
          Contact data
        </Text>
        {custom.length === 0 ? (
          <Text size="xs" c="dimmed">
            {fields.isPending ? 'Loading fields…' : 'No custom fields yet: they come from contacts’ data.'}
          </Text>
        ) : (
          <Group gap={4}>
            {custom.map((field) => chip(dataVariable(field.field), `${field.type}, ${field.coverage}% of contacts`))}
          </Group>
        )}
      </Stack>
    </Paper>
  )
}
