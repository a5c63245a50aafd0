import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { ApiError } from '../../api/client'
import { contactQueries } from '../../api/contacts'
import { useProject } from '../../api/project-context'
import type { ExecutionInput, WorkflowDetail } from '../../api/types'
import { startExecution } from '../../api/workflows'
import { GeneralError } from './GeneralError'
import { JsonField } from './step-forms/JsonField'
import { useWorkflowChange } from './use-workflow-change'

/** A MANUAL execution for one contact, with optional context variables; opens the new execution's page. */
export function StartExecutionModal({ workflow, onClose }: { workflow: WorkflowDetail; onClose(): void }) {
  const { project } = useProject()
  const navigate = useNavigate()
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 300)
  const [contactId, setContactId] = useState<string | null>(null)
  const [context, setContext] = useState<unknown>()
  const contacts = useQuery({
    ...contactQueries.list(project.id, { search: debounced, limit: 20 }),
    placeholderData: keepPreviousData,
  })
  const start = useWorkflowChange(
    () =>
      startExecution(project.id, workflow.id, {
        contactId: contactId ?? '',
        // JsonField hands up only objects parsed from JSON text, which is what `context` takes.
        ...(context === undefined ? {} : { context: context as NonNullable<ExecutionInput['context']> }),
      }),
    () => 'Execution started',
  )
  const error = start.error instanceof ApiError ? start.error : undefined
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Start ${workflow.name}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          start.mutate(undefined, {
            onSuccess: (execution) => navigate(`/workflows/${workflow.id}/executions/${execution.id}`),
          })
        }}
      >
        <Stack>
          <Text size="sm" c="dimmed">
            Runs the workflow now for one contact, as if its trigger had fired.
            {workflow.enabled ? '' : ' The workflow is disabled: the API may refuse to start it.'}
          </Text>
          <GeneralError error={start.error} title="Not started" />
          <Select
            label="Contact"
            required
            searchable
            placeholder="Search by email"
            searchValue={search}
            onSearchChange={setSearch}
            filter={({ options }) => options}
            data={(contacts.data?.data ?? []).map((contact) => ({ value: contact.id, label: contact.email }))}
            value={contactId}
            onChange={setContactId}
            nothingFoundMessage={contacts.isFetching ? 'Searching…' : 'No contact matches'}
            error={error?.forField('contactId')}
            comboboxProps={{ withinPortal: true }}
          />
          <JsonField
            label="Context (optional)"
            description="Variables for this execution, as a JSON object."
            placeholder='{"coupon": "WELCOME10"}'
            value={context}
            onChange={setContext}
            error={error?.forField('context')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={start.isPending} disabled={!contactId}>
              Start execution
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
