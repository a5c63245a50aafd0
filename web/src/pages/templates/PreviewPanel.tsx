import { Code, Paper, ScrollArea, Text, Title } from '@mantine/core'
import type { UseQueryResult } from '@tanstack/react-query'
import type { TemplatePreview } from '../../api/types'
import { EmailPreview } from '../../components/EmailPreview'

/** The HTML as the recipient sees it (sandboxed) and, below it, the plain-text alternative sent with it. */
export function PreviewPanel({ preview, raw }: { preview: UseQueryResult<TemplatePreview>; raw: string }) {
  const rendered = preview.data
  return (
    <Paper withBorder p="xs" component="section" aria-label="Preview">
      <Text size="xs" c="dimmed">
        Subject
      </Text>
      <Text size="sm" fw={600} mb="xs" data-testid="preview-subject">
        {rendered?.subject || '(no subject)'}
      </Text>
      <EmailPreview html={rendered?.html ?? raw} title="Preview of the template body" height={420} />
      <Text size="xs" c="dimmed" mt={4}>
        As a contact without data gets it: variables without a fallback are empty.
        {preview.isError && ' The draft does not render; the last version that did is shown.'}
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
