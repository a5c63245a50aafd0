import { and, asc, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { likeContaining } from '../../db/like.js'
import { workflows } from '../../db/schema/index.js'
import { pageOf } from '../../http/pagination.js'
import { loadExecutionCounts, totalExecutions } from './counts.js'
import type { WorkflowListQuery, WorkflowPage } from './schemas.js'
import { toWorkflowView } from './views.js'

// Spelled out: inside a select list drizzle leaves column names unqualified, which would compare the steps' own ids.
const stepCount = sql<number>`(SELECT count(*)::int FROM workflow_steps AS s WHERE s.workflow_id = "workflows"."id")`

/**
 * `GET /workflows`: one page, filtered by `status` (active = enabled) and a case-insensitive search of name and
 * description. `_count.executions` comes from the counters, so a list never counts executions.
 */
export async function listWorkflows(db: Executor, projectId: string, query: WorkflowListQuery): Promise<WorkflowPage> {
  const filters: (SQL | undefined)[] = [eq(workflows.projectId, projectId)]
  if (query.status) filters.push(eq(workflows.enabled, query.status === 'active'))
  if (query.search) {
    const pattern = likeContaining(query.search)
    filters.push(or(ilike(workflows.name, pattern), ilike(workflows.description, pattern)))
  }
  const where = and(...filters)
  const order = query.dir === 'asc' ? asc : desc
  const sortKey = query.sort === 'steps' ? stepCount : workflows[query.sort]
  const [rows, [count]] = await Promise.all([
    db
      .select({ workflow: workflows, steps: stepCount })
      .from(workflows)
      .where(where)
      .orderBy(order(sortKey), order(workflows.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ total: sql<number>`count(*)::int` }).from(workflows).where(where),
  ])
  const counts = await loadExecutionCounts(
    db,
    rows.map((row) => row.workflow.id),
  )
  const data = rows.map((row) => {
    const executions = counts.get(row.workflow.id)
    return {
      ...toWorkflowView(row.workflow),
      _count: { steps: row.steps, executions: executions ? totalExecutions(executions) : 0 },
    }
  })
  return pageOf(data, count?.total ?? 0, query)
}
