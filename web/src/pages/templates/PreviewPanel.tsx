import { Code, Paper, ScrollArea, Text, Title } from '@mantine/core'
import type { UseQueryResult } from '@tanstack/react-query'
import { useRef } from 'react'
import type { TemplatePreview } from '../../api/types'
import { EmailPreview } from '../../components/EmailPreview'
import { PreviewContactPicker } from './PreviewContactPicker'

/** The HTML as the recipient sees it (sandboxed) and, below it, the plain-text alternative sent with it. */
export function PreviewPanel({
  preview,
  raw,
  contactId,
  onContactChange,
}: {
  preview: UseQueryResult<TemplatePreview>
  raw: string
  contactId: string | null
  onContactChange(id: string | null): void
}) {
  // While the draft does not render, the last rendering that worked stays on screen.
  const lastGood = useRef<TemplatePreview>(undefined)
  if (preview.data) lastGood.current = preview.data
  const rendered = preview.data ?? lastGood.current
  return (
    <Paper withBorder p="xs" component="section" aria-label="Preview">
      <PreviewContactPicker value={contactId} onChange={onContactChange} />
      <Text size="xs" c="dimmed" mt="xs">
        Subject
      </Text>
      <Text size="sm" fw={600} mb="xs" data-testid="preview-subject">
        {rendered?.subject || '(no subject)'}
      </Text>
      <EmailPreview html={rendered?.html ?? raw} title="Preview of the template body" height={420} />
      <Text size="xs" c="dimmed" mt={4}>
        {contactId
          ? 'As this contact gets it; subscription links are added when it is sent.'
          : 'As a contact without data gets it: variables without a fallback are empty.'}
        {preview.isError && rendered && ' The draft does not render; the last version that did is shown.'}
      </Text>
      <Title order={2} size="h5" mt="md" mb={4} id="plain-text-heading">
        Plain-text alternative
      </Title>
      <ScrollArea.Autosize mah={240} type="auto">
        <Code
          block
          role="region"
          aria-labelledby="plain-text-heading"
          tabIndex={0}
          data-testid="plain-text"
          style={{ whiteSpace: 'pre-wrap' }}
        >
          {rendered?.text ?? ''}
        </Code>
      </ScrollArea.Autosize>
    </Paper>
  )
}
