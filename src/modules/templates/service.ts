import { and, asc, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { Database, Executor } from '../../db/client.js'
import { likeContaining } from '../../db/like.js'
import { templates } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { pageOf } from '../../http/pagination.js'
import { validateTemplate } from '../../mail/outbound/render.js'
import { assertSenderAllowed } from '../domains/service.js'
import { findWorkflowsUsingTemplate } from '../references/workflows.js'
import type {
  TemplateCreate,
  TemplateListQuery,
  TemplatePage,
  TemplateUpdate,
  TemplateUsage,
  TemplateView,
} from './schemas.js'

/** Saved templates always render: a syntax error is refused with its position. */
export function assertTemplateSyntax(field: 'subject' | 'body', source: string): void {
  const error = validateTemplate(source)
  if (!error) return
  throw new AppError(
    'TEMPLATE_SYNTAX_ERROR',
    `Template ${field} has a syntax error at line ${error.line}, column ${error.column}: ${error.message}`,
    { details: { field, line: error.line, column: error.column } },
  )
}

/** The sender domain may send for the project, and the subject and body render (campaigns check theirs too). */
export async function checkContent(
  db: Executor,
  config: Config,
  projectId: string,
  input: Partial<Pick<TemplateCreate, 'from' | 'subject' | 'body'>>,
) {
  if (input.from !== undefined) await assertSenderAllowed(db, config, projectId, input.from)
  if (input.subject !== undefined) assertTemplateSyntax('subject', input.subject)
  if (input.body !== undefined) assertTemplateSyntax('body', input.body)
}

export async function createTemplate(
  db: Executor,
  config: Config,
  projectId: string,
  input: TemplateCreate,
): Promise<TemplateView> {
  await checkContent(db, config, projectId, input)
  const [row] = await db
    .insert(templates)
    .values({ ...input, projectId })
    .returning()
  if (!row) throw new Error('template insert returned nothing')
  return row
}

export async function getTemplate(db: Executor, projectId: string, templateId: string): Promise<TemplateView> {
  const [row] = await db
    .select()
    .from(templates)
    .where(and(eq(templates.id, templateId), eq(templates.projectId, projectId)))
  if (!row) throw notFound('Template')
  return row
}

export async function listTemplates(db: Executor, projectId: string, query: TemplateListQuery): Promise<TemplatePage> {
  const filters: (SQL | undefined)[] = [eq(templates.projectId, projectId)]
  if (query.type) filters.push(eq(templates.type, query.type))
  if (query.search) {
    const pattern = likeContaining(query.search)
    filters.push(
      or(ilike(templates.name, pattern), ilike(templates.description, pattern), ilike(templates.subject, pattern)),
    )
  }
  const where = and(...filters)
  const order = query.dir === 'asc' ? asc : desc
  const [rows, [count]] = await Promise.all([
    db
      .select()
      .from(templates)
      .where(where)
      .orderBy(order(templates[query.sort]), order(templates.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ total: sql<number>`count(*)::int` }).from(templates).where(where),
  ])
  return pageOf(rows, count?.total ?? 0, query)
}

export async function updateTemplate(
  db: Database,
  config: Config,
  projectId: string,
  templateId: string,
  input: TemplateUpdate,
): Promise<TemplateView> {
  return db.transaction(async (tx) => {
    const current = await getTemplate(tx, projectId, templateId)
    if (Object.keys(input).length === 0) return current
    await checkContent(tx, config, projectId, input)
    const [row] = await tx
      .update(templates)
      .set(input)
      .where(and(eq(templates.id, templateId), eq(templates.projectId, projectId)))
      .returning()
    return row ?? current
  })
}

/**
 * 409 while a workflow step sends the template (the step would have nothing to send). The row is locked first, so a
 * step saved meanwhile either commits before the check sees it or waits for the delete and then finds no template.
 */
export async function deleteTemplate(db: Database, projectId: string, templateId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: templates.id })
      .from(templates)
      .where(and(eq(templates.id, templateId), eq(templates.projectId, projectId)))
      .for('update')
    if (!row) throw notFound('Template')
    const workflows = await findWorkflowsUsingTemplate(tx, projectId, templateId)
    if (workflows.length > 0) {
      throw new AppError(
        'CONFLICT',
        `Cannot delete template: ${workflows.length} workflow(s) send it. Remove it from their steps first.`,
        { details: { workflows } },
      )
    }
    await tx.delete(templates).where(and(eq(templates.id, templateId), eq(templates.projectId, projectId)))
  })
}

/** A copy under a new id and name; the sender was allowed when the original was saved. */
export async function duplicateTemplate(db: Database, projectId: string, templateId: string): Promise<TemplateView> {
  return db.transaction(async (tx) => {
    const {
      id: _id,
      createdAt: _createdAt,
      updatedAt: _updatedAt,
      ...original
    } = await getTemplate(tx, projectId, templateId)
    const [row] = await tx
      .insert(templates)
      .values({ ...original, name: `${original.name} (copy)`.slice(0, 255) })
      .returning()
    if (!row) throw new Error('template insert returned nothing')
    return row
  })
}

export async function getTemplateUsage(db: Executor, projectId: string, templateId: string): Promise<TemplateUsage> {
  await getTemplate(db, projectId, templateId)
  return { campaigns: [], workflows: await findWorkflowsUsingTemplate(db, projectId, templateId) }
}
