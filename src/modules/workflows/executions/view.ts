import { getTableColumns } from 'drizzle-orm'
import { workflowExecutions } from '../../../db/schema/index.js'

const {
  projectId: _projectId,
  triggerEventId: _event,
  leasedUntil: _lease,
  waitingSince: _since,
  waitOutcome: _outcome,
  ...viewColumns
} = getTableColumns(workflowExecutions)

/** The execution columns an answer shows (the engine's lease and wait bookkeeping stay inside). */
export const executionViewColumns = viewColumns
