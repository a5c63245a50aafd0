import { Button, Code, Group, Paper, ScrollArea, Stack, Text, Title } from '@mantine/core'
import type { UseQueryResult } from '@tanstack/react-query'
import { useRef } from 'react'
import { ApiError } from '../../api/client'
import type { RenderedDraft } from '../../api/templates'
import { EmailPreview } from '../../components/EmailPreview'
import { ErrorAlert } from '../../components/states'
import { PreviewContactPicker, type SampleContact } from './PreviewContactPicker'

/** The HTML as the recipient sees it (sandboxed) and, below it, the plain-text alternative sent with it. */
export function PreviewPanel({
  preview,
  title,
  contactId,
  onContactChange,
  sample,
  boilerplate,
}: {
  preview: UseQueryResult<RenderedDraft>
  /** The frame's name: what body it previews. */
  title: string
  contactId: string | null
  onContactChange(id: string | null): void
  /** Who it is rendered for when no one is picked (a campaign's first recipient). */
  sample?: SampleContact
  /** A starting body the user did not write (a new template's example): never kept as their last good render. */
  boilerplate?: string
}) {
  // While the draft does not render, the last rendering of the user's own draft that worked stays on screen; before
  // any did, nothing: neither the raw source nor the example it replaced is what a recipient would read.
  const lastGood = useRef<RenderedDraft>(undefined)
  if (preview.data && preview.data.body !== boilerplate) lastGood.current = preview.data
  const rendered = preview.isError ? lastGood.current : (preview.data ?? lastGood.current)
  // A draft that does not parse is the editor's to mark; any other failure (the network, the server) gets a retry.
  const syntaxError = preview.error instanceof ApiError && preview.error.code === 'TEMPLATE_SYNTAX_ERROR'
  return (
    <Paper withBorder p="xs" component="section" aria-label="Preview">
      <PreviewContactPicker value={contactId} onChange={onContactChange} sample={sample} />
      <Text size="xs" c="dimmed" mt="xs">
        Subject
      </Text>
      <Text size="sm" fw={600} mb="xs" data-testid="preview-subject" style={{ overflowWrap: 'anywhere' }}>
        {rendered ? rendered.subject || '(no subject)' : ''}
      </Text>
      {preview.isError && !syntaxError && (
        <Stack gap="xs" mb="xs">
          <ErrorAlert error={preview.error} title="The preview could not be rendered" />
          <Group>
            <Button variant="default" size="xs" onClick={() => preview.refetch()}>
              Try again
            </Button>
          </Group>
        </Stack>
      )}
      <EmailPreview html={rendered?.html ?? ''} title={title} height={420} />
      <Text size="xs" c="dimmed" mt={4}>
        {contactId && contactId === sample?.id
          ? 'As the first contact of the audience gets it; subscription links are added when it is sent.'
          : contactId
            ? 'As this contact gets it; subscription links are added when it is sent.'
            : 'As a contact without data gets it: variables without a fallback are empty.'}
        {syntaxError &&
          (rendered
            ? ' The draft does not render; the last version that did is shown.'
            : ' The draft does not render yet: fix the error to see it.')}
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
