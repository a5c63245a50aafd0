import { z } from 'zod'
import { offsetPage, searchablePageQuery } from '../../http/pagination.js'

/** Subjects and names become header values: a CR or LF would let them start a header of their own. */
const singleLine = z.string().regex(/^[^\r\n]*$/, 'must not contain line breaks (CR or LF)')

export const templateType = z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS'])

/** The content fields templates and campaigns share. */
export const contentFields = {
  name: z.string().trim().min(1).max(255),
  description: z.string().max(2_000).nullable().optional(),
  subject: singleLine.min(1).max(998),
  body: z.string().min(1).max(1_000_000),
  from: z.email().max(254),
  fromName: singleLine.max(255).nullable().optional(),
  replyTo: z.email().max(254).nullable().optional(),
}

export const requiredTemplateFields = ['name', 'subject', 'body', 'from'] as const

export const templateCreate = z.object({ ...contentFields, type: templateType.default('MARKETING') })
export type TemplateCreate = z.infer<typeof templateCreate>

export const templateUpdate = z.object({ ...contentFields, type: templateType }).partial()
export type TemplateUpdate = z.infer<typeof templateUpdate>

export const templateIdParams = z.object({ id: z.uuid() })

const maxPageSize = 100

export const templateListQuery = searchablePageQuery(maxPageSize).extend({ type: templateType.optional() })
export type TemplateListQuery = z.infer<typeof templateListQuery>

export const templateView = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  type: templateType,
  projectId: z.uuid(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type TemplateView = z.infer<typeof templateView>

export const templatePage = offsetPage(templateView)
export type TemplatePage = z.infer<typeof templatePage>

/** Where a template is used; campaigns and workflow steps fill these in when those modules exist. */
export const templateUsage = z.object({
  campaigns: z.array(z.object({ id: z.string(), name: z.string() })),
  workflows: z.array(z.object({ id: z.string(), name: z.string() })),
})
export type TemplateUsage = z.infer<typeof templateUsage>

/** A draft's subject and body, rendered for one of the project's contacts, or for a recipient without data. */
export const templatePreviewBody = z.object({
  subject: z.string().max(998).default(''),
  body: contentFields.body,
  contactId: z.uuid().optional(),
})
export type TemplatePreviewBody = z.infer<typeof templatePreviewBody>

/** `text` is the plain-text alternative sent with `html`, made the same way. */
export const templatePreview = z.object({ subject: z.string(), html: z.string(), text: z.string() })
export type TemplatePreview = z.infer<typeof templatePreview>
