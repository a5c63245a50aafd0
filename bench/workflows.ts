import { randomUUID } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { projects, workflowSteps, workflows, workflowTransitions } from '../src/db/schema/index.js'
import { generateProjectKeys, storeProjectKeys } from '../src/modules/projects/keys.js'
import { cpuMsOf, descendants } from './lib/cpu.js'
import { runLoad } from './lib/http-load.js'
import { startInProcessServer } from './lib/in-process-server.js'
import { percentile } from './lib/percentile.js'
import { reportResult } from './lib/result.js'
import { resetStatementStats, topStatements } from './lib/statement-stats.js'

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    waiting: { type: 'string', default: '100000' },
    // The shortest DELAY a workflow can have is one minute.
    'due-in': { type: 'string', default: '60' },
    // With the embedded PostgreSQL: each phase's costliest statements (pg_stat_statements).
    statements: { type: 'boolean', default: false },
  },
})
const rate = Number(values.rate)
const seconds = Number(values.seconds)
const waitingCount = Number(values.waiting)
const dueInSeconds = Number(values['due-in'])

const rssMb = () => Math.round(process.memoryUsage().rss / 1024 / 1024)
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function main() {
  const server = await startInProcessServer(
    { MAIL_TRANSPORT: 'capture', RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'error' },
    { statementStats: values.statements },
  )
  const { ctx, base } = server
  const statements = values.statements && !ctx.config.databaseUrl

  // Keys are stored as their hashes (docs/decisions/0019); the plaintext is what a client sends.
  const id = randomUUID()
  const keys = generateProjectKeys()
  const [inserted] = await ctx.db
    .insert(projects)
    .values({ id, name: 'workflows', ...storeProjectKeys(ctx.config.secret, id, keys) })
    .returning()
  if (!inserted) throw new Error('no project')
  const project = { ...inserted, ...keys }

  /** An enabled workflow on `eventName`: TRIGGER, then `next` in a line; returns the ids. */
  const newWorkflow = async (eventName: string, next: { type: 'UPDATE_CONTACT' | 'DELAY'; config: object }[]) => {
    const [workflow] = await ctx.db
      .insert(workflows)
      .values({ projectId: project.id, name: eventName, eventName, triggerConfig: { eventName }, enabled: true })
      .returning()
    if (!workflow) throw new Error('no workflow')
    const steps = await ctx.db
      .insert(workflowSteps)
      .values(
        [{ type: 'TRIGGER' as const, config: { eventName } }, ...next].map((step, index) => ({
          workflowId: workflow.id,
          type: step.type,
          name: `${step.type} ${index}`,
          position: { x: 0, y: index * 100 },
          config: step.config as Record<string, unknown>,
        })),
      )
      .returning({ id: workflowSteps.id })
    await ctx.db.insert(workflowTransitions).values(
      steps.slice(1).map((step, index) => ({
        workflowId: workflow.id,
        fromStepId: steps[index]?.id ?? '',
        toStepId: step.id,
      })),
    )
    return { id: workflow.id, stepIds: steps.map((step) => step.id) }
  }

  // Triggers: one event per new contact at a steady rate.
  const welcome = await newWorkflow('signed-up', [{ type: 'UPDATE_CONTACT', config: { updates: { welcomed: true } } }])
  const total = rate * seconds
  const postgresCpu = () => descendants(process.pid).reduce((sum, pid) => sum + cpuMsOf(pid), 0)
  if (statements) await resetStatementStats(ctx.db)
  const cpu = process.cpuUsage()
  const postgresBefore = postgresCpu()
  // The clients are another process, as they would be: this one's CPU and event loop are the server's alone.
  const load = await runLoad({
    url: `${base}/v1/track`,
    method: 'POST',
    headers: { authorization: `Bearer ${project.publicKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: '{{email}}', event: 'signed-up', data: { source: 'bench' } }),
    // autocannon spreads the rate over the connections in whole requests per second each: keep it a divisor.
    connections: 50,
    durationSeconds: seconds,
    overallRate: rate,
    amount: total,
  })
  const failures = load.errors + load.non2xx
  const failureSamples = Object.entries(load.statusCodes).filter(([code]) => !code.startsWith('2'))
  const sendSeconds = load.requests / load.requestsPerSecond
  const finished = async () => {
    const result = await ctx.db.execute<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM workflow_executions WHERE workflow_id = ${welcome.id} AND status = 'COMPLETED'`)
    return result.rows[0]?.n ?? 0
  }
  const deadline = Date.now() + 120_000
  while ((await finished()) < total - failures && Date.now() < deadline) await pause(100)
  const used = process.cpuUsage(cpu)
  const postgresMs = postgresCpu() - postgresBefore
  const latencies = await ctx.db.execute<{ ms: number; dispatch_ms: number }>(sql`
    SELECT extract(epoch FROM h.created_at - e.created_at) * 1000 AS ms,
      extract(epoch FROM x.created_at - e.created_at) * 1000 AS dispatch_ms
    FROM workflow_executions x
    JOIN events e ON e.id = x.trigger_event_id
    JOIN workflow_step_executions h ON h.execution_id = x.id AND h.step_type = 'UPDATE_CONTACT'
    WHERE x.workflow_id = ${welcome.id}`)
  const sorted = latencies.rows.map((row) => Number(row.ms)).sort((a, b) => a - b)
  const dispatch = latencies.rows.map((row) => Number(row.dispatch_ms)).sort((a, b) => a - b)
  const triggers = {
    events: total,
    // Named as every benchmark names them, so the quick run CI makes fails when any request failed.
    errors: load.errors,
    non2xx: load.non2xx,
    failureSamples,
    sendSeconds: Number(sendSeconds.toFixed(2)),
    achievedRatePerSecond: Math.round(total / sendSeconds),
    executionsCompleted: await finished(),
    firstStepMs: {
      p50: Math.round(percentile(sorted, 0.5)),
      p95: Math.round(percentile(sorted, 0.95)),
      p99: Math.round(percentile(sorted, 0.99)),
    },
    // Of which: from the event's row to its execution's (the event bus hands the event to the trigger).
    startMs: { p50: Math.round(percentile(dispatch, 0.5)), p95: Math.round(percentile(dispatch, 0.95)) },
    // This process (the load's HTTP client included) and the embedded PostgreSQL, per event.
    cpuMsPerEvent: Number(((used.user + used.system) / 1000 / total).toFixed(2)),
    postgresCpuMsPerEvent: ctx.config.databaseUrl ? null : Number((postgresMs / total).toFixed(2)),
    ...(statements && { statements: await topStatements(ctx.db) }),
  }

  // Delays: executions waiting in a DELAY that ends for all of them at one moment.
  const delayed = await newWorkflow('delayed', [{ type: 'DELAY', config: { amount: 1, unit: 'minutes' } }])
  const delayStepId = delayed.stepIds[1]
  await pause(2_000)
  global.gc?.()
  // pg_stat_checkpointer is PostgreSQL 17's (the embedded one); a DATABASE_URL server may be older.
  const walStats = async () => {
    if (ctx.config.databaseUrl) return undefined
    const result = await ctx.db.execute<Record<string, string>>(sql`
      SELECT w.wal_records, w.wal_fpi, w.wal_bytes, c.num_timed + c.num_requested AS checkpoints,
        c.buffers_written AS checkpoint_buffers
      FROM pg_stat_wal AS w CROSS JOIN pg_stat_checkpointer AS c`)
    return result.rows[0] ?? {}
  }
  const walDifference = (before?: Record<string, string>, after?: Record<string, string>) =>
    before &&
    after && {
      records: Number(after.wal_records) - Number(before.wal_records),
      fullPageImages: Number(after.wal_fpi) - Number(before.wal_fpi),
      mb: Math.round((Number(after.wal_bytes) - Number(before.wal_bytes)) / 1024 / 1024),
      checkpoints: Number(after.checkpoints) - Number(before.checkpoints),
      checkpointBuffers: Number(after.checkpoint_buffers) - Number(before.checkpoint_buffers),
    }
  const rssBefore = rssMb()
  const dueAt = new Date(Date.now() + dueInSeconds * 1000)
  const walAtInsert = await walStats()
  const insertStarted = performance.now()
  for (let from = 0; from < waitingCount; from += 50_000) {
    const to = Math.min(waitingCount, from + 50_000)
    await ctx.db.execute(sql`
      WITH added AS (
        INSERT INTO contacts (project_id, email, subscribed)
        SELECT ${project.id}, 'waiting-' || n || '@example.org', true FROM generate_series(${from}::int, ${to - 1}::int) AS n
        RETURNING id
      ),
      runs AS (
        INSERT INTO workflow_executions (project_id, workflow_id, contact_id, status, trigger_kind, current_step_id, due_at)
        SELECT ${project.id}, ${delayed.id}, id, 'WAITING', 'MANUAL', ${delayStepId}, ${dueAt.toISOString()}::timestamptz
        FROM added
        RETURNING id
      )
      INSERT INTO workflow_step_executions (execution_id, step_id, step_type, step_name, status, execute_after, started_at)
      SELECT id, ${delayStepId}, 'DELAY', 'DELAY 1', 'WAITING', ${dueAt.toISOString()}::timestamptz, now() FROM runs`)
  }
  const insertSeconds = (performance.now() - insertStarted) / 1000
  await pause(2_000)
  global.gc?.()
  const rssWaiting = rssMb()
  while (Date.now() < dueAt.getTime()) await pause(100)
  if (statements) await resetStatementStats(ctx.db)
  const walBefore = await walStats()
  const wakeCpu = process.cpuUsage()
  const wakePostgresBefore = postgresCpu()
  const wakeDeadline = Date.now() + 300_000
  const completed = async () => {
    const result = await ctx.db.execute<{ n: number }>(sql`
      SELECT count(*) FILTER (WHERE status = 'COMPLETED')::int AS n FROM workflow_executions
      WHERE workflow_id = ${delayed.id}`)
    return result.rows[0]?.n ?? 0
  }
  // Every 2 s: a look reads every execution of the workflow (~100 ms of PostgreSQL's time on a busy machine: at
  // every half second it took 13 % of what the wake used). The lateness comes from completed_at, not from here.
  while ((await completed()) < waitingCount && Date.now() < wakeDeadline) await pause(2_000)
  const wakeUsed = process.cpuUsage(wakeCpu)
  const wakePostgresMs = postgresCpu() - wakePostgresBefore
  const walAfter = await walStats()
  const woke = await ctx.db.execute<{ p50: number; p95: number; last: number; n: number }>(sql`
    SELECT count(*)::int AS n,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - ${dueAt.toISOString()}::timestamptz)) AS p50,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - ${dueAt.toISOString()}::timestamptz)) AS p95,
      max(extract(epoch FROM completed_at - ${dueAt.toISOString()}::timestamptz)) AS last
    FROM workflow_executions WHERE workflow_id = ${delayed.id} AND status = 'COMPLETED'`)
  const wake = woke.rows[0]
  const delays = {
    waiting: waitingCount,
    insertSeconds: Number(insertSeconds.toFixed(1)),
    rssBeforeMb: rssBefore,
    rssWhileWaitingMb: rssWaiting,
    completed: wake?.n ?? 0,
    lateSeconds: {
      p50: Number(Number(wake?.p50 ?? 0).toFixed(2)),
      p95: Number(Number(wake?.p95 ?? 0).toFixed(2)),
      last: Number(Number(wake?.last ?? 0).toFixed(2)),
    },
    // Less disturbed by other load on the machine than the wall-clock lateness above.
    cpuMsPerExecution: Number(((wakeUsed.user + wakeUsed.system) / 1000 / waitingCount).toFixed(3)),
    postgresCpuMsPerExecution: ctx.config.databaseUrl ? null : Number((wakePostgresMs / waitingCount).toFixed(3)),
    // What the wake wrote to the WAL, and the checkpoints that ran meanwhile (each one's pages are written again
    // whole, as full-page images, at their first change after it).
    wal: walDifference(walBefore, walAfter),
    walFromInsertToDue: walDifference(walAtInsert, walBefore),
    ...(statements && { statements: await topStatements(ctx.db) }),
  }

  const result = {
    bench: 'workflows',
    cores: availableParallelism(),
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
    database: ctx.config.databaseUrl ? 'DATABASE_URL' : 'embedded',
    triggers,
    delays,
    bars: { eventsPerSecond: 1_000, firstStepP95Ms: 1_000, waiting: 100_000, wakeWithinSeconds: 5 },
    pass:
      triggers.achievedRatePerSecond >= rate * 0.95 &&
      triggers.executionsCompleted === total &&
      triggers.firstStepMs.p95 <= 1_000 &&
      delays.completed === waitingCount &&
      delays.lateSeconds.last <= 5,
    at: new Date().toISOString(),
  }
  reportResult(`workflows-${Date.now()}.json`, result)

  await server.close()
}

await main()
