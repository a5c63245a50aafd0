import { and, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { templates } from '../../db/schema/index.js'
import { notFound, validationError } from '../../errors.js'
import type { StepType } from './step-config/config-by-type.js'

/** 404 `Template not found` unless the template is the project's (another project's reads the same as none). */
export async function assertProjectTemplate(db: Executor, projectId: string, templateId: string): Promise<void> {
  const [row] = await db
    .select({ id: templates.id })
    .from(templates)
    .where(and(eq(templates.id, templateId), eq(templates.projectId, projectId)))
    // Held until commit, so the template cannot be deleted between this check and the step's write.
    .for('key share')
  if (!row) throw notFound('Template')
}

/** 422 at `templateId` for a template on a step that sends nothing. */
export function assertTemplateAllowed(type: StepType, templateId: string | null | undefined): void {
  if (templateId && type !== 'SEND_EMAIL') {
    throw validationError([{ field: 'templateId', code: 'custom', message: 'Only SEND_EMAIL steps use a template' }])
  }
}

export const templateRequired = () =>
  validationError([{ field: 'templateId', code: 'custom', message: 'A SEND_EMAIL step needs a template' }])

/**
 * A SEND_EMAIL config keeps Plunk's deprecated `templateId` copy equal to the step's column, which decides, so a
 * reader of either sees the same template.
 */
export function withTemplateCopy(
  type: StepType,
  config: Record<string, unknown>,
  templateId: string | null,
): Record<string, unknown> {
  if (type !== 'SEND_EMAIL') return config
  const { templateId: _copy, ...rest } = config
  return templateId ? { ...rest, templateId } : rest
}
