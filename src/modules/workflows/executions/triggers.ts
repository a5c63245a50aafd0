import { sql } from 'drizzle-orm'
import type { Transaction } from '../../../db/client.js'
import type { BusEvent, EventSubscriber } from '../../../events/bus.js'
import { wakeWorkflowLoop } from '../engine/wake.js'

/** The batch as rows for one statement; `position` keeps the bus's order (a contact's events in order). */
function batchJson(events: readonly BusEvent[]): string {
  return JSON.stringify(
    events
      // An execution's own records (`workflow.*`) start and resume nothing: a workflow cannot feed itself.
      .filter((event) => event.contactId !== null && !event.name.startsWith('workflow.'))
      .map((event, position) => ({
        id: event.id,
        project_id: event.projectId,
        contact_id: event.contactId,
        name: event.name,
        data: event.data,
        created_at: event.createdAt.toISOString(),
        position,
      })),
  )
}

const batchRows = (json: string) => sql`
  jsonb_to_recordset(${json}::jsonb)
    AS b(id uuid, project_id uuid, contact_id uuid, name text, data jsonb, created_at timestamptz, position int)`

/**
 * Starts an execution of every enabled workflow whose trigger names the event, for the event's contact, at the
 * workflow's TRIGGER step, with the event's payload as context. One statement per batch. The re-entry rules are
 * constraints, not checks: `workflow_entries` admits a contact once (allowReentry false), and the partial
 * unique index on active executions refuses a second one (allowReentry true); within a batch a contact's
 * first event of it is the one that starts the execution.
 */
async function startTriggeredExecutions(tx: Transaction, json: string): Promise<number> {
  const started = await tx.execute(sql`
    WITH candidates AS (
      SELECT DISTINCT ON (w.id, b.contact_id)
        w.id AS workflow_id, w.project_id, w.allow_reentry, b.contact_id, b.id AS event_id, b.data, s.id AS step_id
      FROM ${batchRows(json)}
      JOIN workflows AS w ON w.project_id = b.project_id AND w.event_name = b.name
        AND w.enabled AND w.trigger_type = 'EVENT'
      JOIN workflow_steps AS s ON s.workflow_id = w.id AND s.type = 'TRIGGER'
      JOIN contacts AS c ON c.id = b.contact_id AND c.project_id = b.project_id
      ORDER BY w.id, b.contact_id, b.position
    ),
    entered AS (
      INSERT INTO workflow_entries (workflow_id, contact_id)
      SELECT workflow_id, contact_id FROM candidates
      ON CONFLICT DO NOTHING
      RETURNING workflow_id, contact_id
    )
    INSERT INTO workflow_executions
      (project_id, workflow_id, contact_id, status, trigger_kind, trigger_event_id, current_step_id, context, due_at)
    SELECT c.project_id, c.workflow_id, c.contact_id, 'RUNNING', 'EVENT', c.event_id, c.step_id, c.data, now()
    FROM candidates AS c
    WHERE c.allow_reentry
      OR EXISTS (SELECT 1 FROM entered AS e WHERE e.workflow_id = c.workflow_id AND e.contact_id = c.contact_id)
    ON CONFLICT DO NOTHING`)
  return started.rowCount ?? 0
}

/**
 * Ends the waits the events answer: an execution of the event's contact waiting for that event name since
 * before the event, each by the first such event of the batch. Its payload is merged into the context and the
 * execution becomes due now; the engine takes the wait's `event` way. An execution whose timeout a worker is
 * handling holds its row lock, so exactly one of the two outcomes wins.
 */
async function resumeWaitingExecutions(tx: Transaction, json: string): Promise<number> {
  const resumed = await tx.execute(sql`
    WITH hits AS (
      SELECT DISTINCT ON (x.id) x.id, b.data
      FROM ${batchRows(json)}
      JOIN workflow_executions AS x ON x.contact_id = b.contact_id AND x.waiting_for = b.name
        AND x.status = 'WAITING' AND x.wait_outcome IS NULL AND x.waiting_since <= b.created_at
      ORDER BY x.id, b.position
    )
    UPDATE workflow_executions AS x
    SET wait_outcome = 'EVENT', context = x.context || hits.data, due_at = now(), updated_at = now()
    FROM hits
    WHERE x.id = hits.id AND x.status = 'WAITING' AND x.wait_outcome IS NULL`)
  return resumed.rowCount ?? 0
}

/** The event bus's workflow subscriber: in the dispatch transaction, so nothing is started or resumed twice. */
export const workflowSubscriber: EventSubscriber = async (events, { ctx, tx, afterCommit }) => {
  const json = batchJson(events)
  if (json === '[]') return
  // Waits first: an event that starts an execution must not also end a wait of that new execution.
  const resumed = await resumeWaitingExecutions(tx, json)
  const started = await startTriggeredExecutions(tx, json)
  // The executions are due now: their first step (or the wait's `event` way) runs at once, not at a poll.
  if (resumed + started > 0) afterCommit(() => wakeWorkflowLoop(ctx.pool))
}
