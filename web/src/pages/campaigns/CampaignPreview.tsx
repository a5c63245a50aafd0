import { useDebouncedValue } from '@mantine/hooks'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { campaignQueries } from '../../api/campaigns'
import { useProject } from '../../api/project-context'
import type { Campaign } from '../../api/types'
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
  return useQuery({ ...campaignQueries.audienceSample(project.id, input, type), retry: false })
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
