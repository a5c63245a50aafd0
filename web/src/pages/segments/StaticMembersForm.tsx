import { Alert, Button, Checkbox, Group, Paper, Stack, Textarea, Title } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { addSegmentMembers, removeSegmentMembers, segmentQueries } from '../../api/segments'
import { ErrorAlert } from '../../components/states'

/** Addresses as typed: one per line, or separated by commas, semicolons or spaces. */
function emailsOf(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).filter(Boolean))]
}

/** The API names a bad address by its index (`emails.2`); the user knows it by what they typed. */
function addressError(field: string, message: string, emails: string[]): string {
  const address = emails[Number(field.split('.')[1])]
  return address ? `${address}: ${message}` : message
}

const plural = (count: number, word: string) => `${count.toLocaleString()} ${word}${count === 1 ? '' : 's'}`

/** Add or remove a static segment's members by address, saying what the API matched, created and did not find. */
export function StaticMembersForm({ segmentId }: { segmentId: string }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const [text, setText] = useState('')
  const [createMissing, setCreateMissing] = useState(false)
  const [outcome, setOutcome] = useState<string>()
  const change = useMutation({
    mutationFn: async (verb: 'add' | 'remove') => {
      const emails = emailsOf(text)
      if (verb === 'remove') {
        const { removed } = await removeSegmentMembers(project.id, segmentId, emails)
        return `Removed ${plural(removed, 'contact')}.`
      }
      const { added, created, notFound } = await addSegmentMembers(project.id, segmentId, emails, createMissing)
      const parts = [`Added ${plural(added, 'contact')}`]
      if (created > 0) parts.push(`created ${plural(created, 'new contact')}`)
      if (notFound.length > 0) parts.push(`not found: ${notFound.join(', ')}`)
      return `${parts.join('; ')}.`
    },
    onMutate: () => setOutcome(undefined),
    onSuccess: async (message) => {
      setOutcome(message)
      setText('')
      await queryClient.invalidateQueries({ queryKey: segmentQueries.all(project.id) })
    },
  })
  const error = change.error instanceof ApiError ? change.error : undefined
  const fieldError = error?.fieldErrors.find((item) => item.field.startsWith('emails'))
  const empty = emailsOf(text).length === 0
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="static-members-title">
      <Title order={2} size="h4" mb="xs" id="static-members-title">
        Add or remove members
      </Title>
      <Stack gap="sm">
        <Textarea
          label="Email addresses"
          description="One per line, or separated by commas. At most 500 at a time."
          autosize
          minRows={3}
          maxRows={10}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          error={fieldError ? addressError(fieldError.field, fieldError.message, emailsOf(text)) : undefined}
        />
        <Checkbox
          label="Create contacts for addresses not known yet (subscribed)"
          checked={createMissing}
          onChange={(event) => setCreateMissing(event.currentTarget.checked)}
        />
        <Group>
          <Button
            onClick={() => change.mutate('add')}
            disabled={empty}
            loading={change.isPending && change.variables === 'add'}
          >
            Add members
          </Button>
          <Button
            variant="outline"
            color="red.9"
            onClick={() => change.mutate('remove')}
            disabled={empty}
            loading={change.isPending && change.variables === 'remove'}
          >
            Remove members
          </Button>
        </Group>
        {outcome && (
          <Alert color="teal" role="status" title="Done">
            {outcome}
          </Alert>
        )}
        {change.isError && !fieldError && <ErrorAlert error={change.error} title="Members not changed" />}
      </Stack>
    </Paper>
  )
}
