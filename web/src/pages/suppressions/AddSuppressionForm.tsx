import { Button, Group, Paper, Select, TextInput } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { addSuppression } from '../../api/suppressions'
import type { Suppression, SuppressionInput } from '../../api/types'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert } from '../../components/states'
import { reasonLabels } from './reasons'

/** Adds an address by hand, e.g. one known to be dead or taken from another provider's list. */
export function AddSuppressionForm({ onAdded }: { onAdded(): void }) {
  const { project } = useProject()
  const [email, setEmail] = useState('')
  const [reason, setReason] = useState<Suppression['reason']>('bounce')
  const add = useMutation({
    mutationFn: (body: SuppressionInput) => addSuppression(project.id, body),
    onSuccess: (added) => {
      setEmail('')
      notifySuccess(`Suppressed: ${added.email} will receive no mail`)
      onAdded()
    },
  })
  const error = add.error instanceof ApiError ? add.error : undefined
  const submit = (event: FormEvent) => {
    event.preventDefault()
    add.mutate({ email: email.trim(), reason })
  }
  return (
    <Paper withBorder p="sm" mb="md" component="form" onSubmit={submit} noValidate aria-label="Add a suppression">
      <Group align="flex-start">
        <TextInput
          label="Address to suppress"
          type="email"
          required
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          error={error?.forField('email')}
          w={320}
        />
        <Select
          label="Reason"
          value={reason}
          allowDeselect={false}
          onChange={(value) => value && setReason(value as Suppression['reason'])}
          data={Object.entries(reasonLabels).map(([value, label]) => ({ value, label }))}
          w={160}
        />
        <Button type="submit" mt={25} loading={add.isPending}>
          Suppress
        </Button>
      </Group>
      {add.isError && (!error || error.general) && <ErrorAlert error={add.error} title="Not added" />}
    </Paper>
  )
}
