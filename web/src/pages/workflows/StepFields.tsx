import { Stack, TextInput } from '@mantine/core'
import { ApiError } from '../../api/client'
import type { StepType } from '../../api/types'
import type { NewStep } from './graph-actions'
import { StepConfigFields } from './step-forms/StepConfigFields'

/** A step's name and its type's config form, with the API's field errors (`name`, `config.*`, `templateId`). */
export function StepFields({
  type,
  draft,
  onChange,
  error,
}: {
  type: StepType
  draft: Omit<NewStep, 'type'>
  onChange(draft: Omit<NewStep, 'type'>): void
  error: unknown
}) {
  const apiError = error instanceof ApiError ? error : undefined
  const errorFor = (path: string) =>
    apiError?.forField(path ? `config.${path}` : 'config') ??
    (path === 'templateId' ? apiError?.forField('templateId') : undefined)
  return (
    <Stack gap="sm">
      <TextInput
        label="Step name"
        required
        value={draft.name}
        onChange={(event) => onChange({ ...draft, name: event.currentTarget.value })}
        error={apiError?.forField('name')}
      />
      <StepConfigFields
        type={type}
        config={draft.config}
        onChange={(config) => onChange({ ...draft, config })}
        errorFor={errorFor}
        templateId={draft.templateId}
        onTemplateChange={(templateId) => onChange({ ...draft, templateId })}
      />
    </Stack>
  )
}
