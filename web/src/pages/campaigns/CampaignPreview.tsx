import { useDebouncedValue } from '@mantine/hooks'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api, query } from '../../api/client'
import { useProject } from '../../api/project-context'
import { listSegmentContacts, previewSegment } from '../../api/segments'
import type { Campaign, ContactPage } from '../../api/types'
import type { SampleContact } from '../templates/PreviewContactPicker'
import { PreviewPanel } from '../templates/PreviewPanel'
import { useTemplatePreview } from '../templates/use-template-preview'
import { type Audience, audienceInput } from './AudiencePicker'

/**
 * The first contact of the audience (by address), to render the preview for: who gets the email, so the preview
 * shows what one of them reads. Undefined while the audience has no one (or its condition is not complete yet).
 */
function useAudienceSample(audience: Audience, type: Campaign['type']) {
  const { project } = useProject()
  const [input] = useDebouncedValue(audienceInput(audience), 400)
  return useQuery({
    queryKey: ['project', project.id, 'audience-sample', input, type],
    queryFn: async ({ signal }): Promise<SampleContact | null> => {
      if (input.audienceType === 'SEGMENT') {
        if (!input.segmentId) return null
        return (await listSegmentContacts(project.id, input.segmentId, 1, 1)).data[0] ?? null
      }
      if (input.audienceType === 'FILTERED') {
        const preview = await previewSegment(project.id, { condition: input.audienceCondition, limit: 1 }, signal)
        return preview.contacts[0] ?? null
      }
      // Marketing email goes to subscribed contacts only.
      const subscribed = type === 'MARKETING' ? 'true' : undefined
      const page = await api<ContactPage>(`/contacts${query({ limit: 1, sort: 'email', dir: 'asc', subscribed })}`, {
        projectId: project.id,
        signal,
      })
      return page.data[0] ?? null
    },
    retry: false,
  })
}

/**
 * A campaign's subject and body as a recipient gets them: rendered by the API for the audience's first contact, or
 * for a contact picked instead.
 */
export function CampaignPreview({
  subject,
  body,
  audience,
  type,
  boilerplate,
}: {
  subject: string
  body: string
  audience: Audience
  type: Campaign['type']
  /** A new campaign's example body, not the user's: see PreviewPanel. */
  boilerplate?: string
}) {
  const sample = useAudienceSample(audience, type)
  const [picked, setPicked] = useState<string | null>(null)
  const sampleContact = sample.data ?? undefined
  const contactId = picked ?? sampleContact?.id ?? null
  // Rendered once the sample is known, so the preview does not flash a render for nobody first.
  const preview = useTemplatePreview(subject, body, contactId, !sample.isPending)
  return (
    <PreviewPanel
      preview={preview}
      title="Preview of the campaign body"
      contactId={contactId}
      onContactChange={setPicked}
      sample={sampleContact}
      boilerplate={boilerplate}
    />
  )
}
