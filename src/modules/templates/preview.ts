import type { Executor } from '../../db/client.js'
import { plainTextOf } from '../../mail/outbound/plain-text.js'
import { type RenderVariables, renderHtml, renderSubject } from '../../mail/outbound/render.js'
import { getContact } from '../contacts/service.js'
import type { TemplatePreview, TemplatePreviewBody } from './schemas.js'
import { assertTemplateSyntax } from './service.js'

/**
 * A draft as one contact (or a recipient without data) gets it: the syntax checked as a save checks it (same
 * 400 and position), variables without a value and without a fallback empty, and the text alternative made as
 * the composer makes it. Subscription links are left out: they are signed per email when it is sent.
 */
export async function previewTemplate(
  db: Executor,
  projectId: string,
  input: TemplatePreviewBody,
): Promise<TemplatePreview> {
  assertTemplateSyntax('subject', input.subject)
  assertTemplateSyntax('body', input.body)
  let variables: RenderVariables = {}
  if (input.contactId) {
    const contact = await getContact(db, projectId, input.contactId)
    variables = { id: contact.id, email: contact.email, data: contact.data }
  }
  const [subject, html] = await Promise.all([
    renderSubject(input.subject, variables),
    renderHtml(input.body, variables),
  ])
  return { subject, html, text: plainTextOf(html) }
}
