import { List, Text } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { contactQueries, deleteContactField } from '../../api/contacts'
import { useProject } from '../../api/project-context'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { notifySuccess } from '../../components/notify'

/** Deletes a custom field from every contact, after showing how many lose it and what refers to it. */
export function DeleteFieldDialog({
  field,
  count,
  onClose,
}: {
  field: string | undefined
  count: number
  onClose(): void
}) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const usage = useQuery({ ...contactQueries.fieldUsage(project.id, field ?? ''), enabled: field !== undefined })
  const remove = useMutation({
    mutationFn: () => deleteContactField(project.id, field ?? ''),
    onSuccess: async (result) => {
      notifySuccess(`Removed data.${result.field} from ${result.contacts} contacts`)
      onClose()
      await queryClient.invalidateQueries({ queryKey: contactQueries.all(project.id) })
    },
  })
  const uses = usage.data
    ? [
        ...usage.data.segments.map((use) => `Segment: ${use.name}`),
        ...usage.data.campaigns.map((use) => `Campaign: ${use.name}`),
        ...usage.data.workflows.map((use) => `Workflow: ${use.name}`),
      ]
    : []
  return (
    <ConfirmDialog
      opened={field !== undefined}
      title={`Delete the field data.${field ?? ''}?`}
      confirmLabel="Delete field"
      onConfirm={() => remove.mutate()}
      onClose={() => {
        remove.reset()
        onClose()
      }}
      pending={remove.isPending}
      error={remove.error ?? usage.error}
    >
      <Text size="sm">
        {count.toLocaleString()} {count === 1 ? 'contact loses' : 'contacts lose'} this value. This cannot be undone.
      </Text>
      {usage.isPending ? (
        <Text size="sm" mt="xs">
          Checking where it is used…
        </Text>
      ) : uses.length > 0 ? (
        <>
          <Text size="sm" mt="xs">
            Still referred to by:
          </Text>
          <List size="sm">
            {uses.map((use) => (
              <List.Item key={use}>{use}</List.Item>
            ))}
          </List>
        </>
      ) : (
        <Text size="sm" mt="xs">
          No segment, campaign or workflow refers to it.
        </Text>
      )}
    </ConfirmDialog>
  )
}
