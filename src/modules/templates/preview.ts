import { plainTextOf } from '../../mail/outbound/compose.js'
import { renderHtml, renderSubject } from '../../mail/outbound/render.js'
import type { TemplatePreview, TemplatePreviewBody } from './schemas.js'
import { assertTemplateSyntax } from './service.js'

/**
 * A draft as a recipient without data gets it: the syntax checked as a save checks it (same 400 and position),
 * variables without a fallback empty, and the text alternative made as the composer makes it.
 */
export async function previewTemplate(input: TemplatePreviewBody): Promise<TemplatePreview> {
  assertTemplateSyntax('subject', input.subject)
  assertTemplateSyntax('body', input.body)
  const [subject, html] = await Promise.all([renderSubject(input.subject, {}), renderHtml(input.body, {})])
  return { subject, html, text: plainTextOf(html) }
}
