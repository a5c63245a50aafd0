import { and, eq, sql } from 'drizzle-orm'
import type { Database } from '../../../db/client.js'
import { contacts, workflowExecutions, workflowSteps, workflows } from '../../../db/schema/index.js'
import { AppError, notFound } from '../../../errors.js'
import type { ExecutionStart, ExecutionView } from './schemas.js'
import { executionViewColumns } from './view.js'

function isUniqueViolation(err: unknown): boolean {
  const cause = err instanceof Error && 'cause' in err ? err.cause : err
  return typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === '23505'
}

/**
 * `POST /workflows/:id/executions`: a MANUAL execution for one of the project's contacts, RUNNING at the
 * TRIGGER step; a worker runs it within the second. The re-entry rules are the same constraints the event
 * triggers meet, so a start racing an event cannot make a second execution.
 */
export async function startManualExecution(
  db: Database,
  projectId: string,
  workflowId: string,
  input: ExecutionStart,
): Promise<ExecutionView> {
  return db.transaction(async (tx) => {
    const [workflow] = await tx
      .select({ enabled: workflows.enabled, allowReentry: workflows.allowReentry, triggerStepId: workflowSteps.id })
      .from(workflows)
      .leftJoin(workflowSteps, and(eq(workflowSteps.workflowId, workflows.id), eq(workflowSteps.type, 'TRIGGER')))
      .where(and(eq(workflows.id, workflowId), eq(workflows.projectId, projectId)))
      // Not disabled, edited or deleted until the execution is in; starts of one workflow do not wait on each other.
      .for('share', { of: workflows })
    if (!workflow) throw notFound('Workflow')
    if (!workflow.enabled) throw new AppError('BAD_REQUEST', 'Workflow is not enabled')
    const [contact] = await tx
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.id, input.contactId), eq(contacts.projectId, projectId)))
    if (!contact) throw notFound('Contact')
    const entered = await tx.execute(sql`
      INSERT INTO workflow_entries (workflow_id, contact_id) VALUES (${workflowId}, ${contact.id})
      ON CONFLICT DO NOTHING RETURNING contact_id`)
    if (entered.rows.length === 0 && !workflow.allowReentry) {
      throw new AppError('CONFLICT', 'This contact has already run this workflow, which does not allow re-entry')
    }
    const [execution] = await tx
      .insert(workflowExecutions)
      .values({
        projectId,
        workflowId,
        contactId: contact.id,
        triggerKind: 'MANUAL',
        currentStepId: workflow.triggerStepId,
        context: input.context ?? {},
        dueAt: sql`now()`,
      })
      .returning(executionViewColumns)
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) {
          throw new AppError('CONFLICT', 'An execution of this workflow is already active for this contact')
        }
        throw err
      })
    if (!execution) throw new Error('no execution inserted')
    return execution
  })
}
