import { asc, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { workflowSteps } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { configSchemaByType } from './step-config/config-by-type.js'

type Problem = { stepId: string; name: string; problem: string }

/**
 * 400 when a step could not run as saved: a SEND_EMAIL step whose template was unlinked, or a config an older
 * version accepted and this one no longer does. Checked when a workflow is enabled, so an enabled workflow fails
 * no step for a reason the API could have named (Plunk enables anything and fails executions later).
 */
export async function assertRunnable(db: Executor, workflowId: string): Promise<void> {
  const steps = await db
    .select()
    .from(workflowSteps)
    .where(eq(workflowSteps.workflowId, workflowId))
    .orderBy(asc(workflowSteps.createdAt), asc(workflowSteps.id))
  const problems: Problem[] = []
  for (const step of steps) {
    const parsed = configSchemaByType[step.type].safeParse(step.config)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue?.path.length ? `config.${issue.path.join('.')}` : 'config'
      problems.push({ stepId: step.id, name: step.name, problem: `${where}: ${issue?.message ?? 'invalid'}` })
    }
    if (step.type === 'SEND_EMAIL' && !step.templateId) {
      problems.push({ stepId: step.id, name: step.name, problem: 'no template' })
    }
  }
  if (problems.length === 0) return
  const list = problems.map((problem) => `"${problem.name}": ${problem.problem}`).join('; ')
  throw new AppError('BAD_REQUEST', `The workflow cannot be enabled until these steps are fixed: ${list}`, {
    details: { steps: problems },
  })
}
