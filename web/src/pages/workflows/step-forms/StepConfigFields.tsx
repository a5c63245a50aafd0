import { TextInput } from '@mantine/core'
import type { StepType } from '../../../api/types'
import { ConditionFields } from './ConditionFields'
import { DelayFields } from './DelayFields'
import { type ConfigFieldsProps, text } from './fields'
import { SendEmailFields } from './SendEmailFields'
import { UpdateContactFields } from './UpdateContactFields'
import { WaitForEventFields } from './WaitForEventFields'
import { WebhookFields } from './WebhookFields'

type Props = ConfigFieldsProps & {
  type: StepType
  templateId: string | null
  onTemplateChange(id: string | null): void
}

/** The config form of a step's type; the schemas behind each are the server's (step-config/config.ts). */
export function StepConfigFields({ type, templateId, onTemplateChange, ...props }: Props) {
  switch (type) {
    case 'SEND_EMAIL':
      return <SendEmailFields {...props} templateId={templateId} onTemplateChange={onTemplateChange} />
    case 'DELAY':
      return <DelayFields {...props} />
    case 'WAIT_FOR_EVENT':
      return <WaitForEventFields {...props} />
    case 'WEBHOOK':
      return <WebhookFields {...props} />
    case 'UPDATE_CONTACT':
      return <UpdateContactFields {...props} />
    case 'EXIT':
      return (
        <TextInput
          label="Exit reason"
          description="Recorded on the execution when it ends here."
          value={text(props.config.reason)}
          onChange={(event) => props.onChange({ ...props.config, reason: event.currentTarget.value })}
          error={props.errorFor('reason')}
        />
      )
    case 'CONDITION':
      return <ConditionFields {...props} />
    case 'TRIGGER':
      return null
  }
}

/** A new step's starting config: what the type's form shows before anything is typed. */
export function initialConfig(type: StepType): Record<string, unknown> {
  switch (type) {
    case 'SEND_EMAIL':
      return { recipient: { type: 'CONTACT' } }
    case 'DELAY':
      return { amount: 1, unit: 'hours' }
    case 'WAIT_FOR_EVENT':
      return { eventName: '' }
    case 'WEBHOOK':
      return { url: '', method: 'POST' }
    case 'UPDATE_CONTACT':
      return { subscriptionAction: 'none' }
    case 'EXIT':
      return { reason: 'exit_step' }
    case 'CONDITION':
      return { field: 'email', operator: 'contains', value: '' }
    default:
      return {}
  }
}
