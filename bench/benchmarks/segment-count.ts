import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type SQL, sql } from 'drizzle-orm'
import {
  type ConditionTree,
  conditionSql,
  countMatchingContacts,
  loadContactSnapshot,
  matchesCondition,
  prepareCondition,
} from '../../src/conditions/index.js'
import { loadConfig } from '../../src/config.js'
import { type AppContext, createAppContext } from '../../src/context.js'
import { projects } from '../../src/db/schema/index.js'
import { createLogger } from '../../src/logger.js'
import { generateProjectKeys } from '../../src/modules/projects/keys.js'
import { medianMs } from '../lib/median.js'
import type { Benchmark } from '../lib/types.js'

const runs = 5

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await run()
  return Number(((performance.now() - started) / 1000).toFixed(1))
}

/**
 * Contacts over two years with a plan each; events over 180 days, inserted in time order as they arrive, one in
 * ten a purchase, spread at random over the contacts. Set-based, on the real (logged, fully indexed) tables.
 * Event ids ascend (no query reads them): random ones made the primary key and the bus's (tx_id, id) index
 * take most of a 12-minute load in random page writes.
 */
async function generate(ctx: AppContext, projectId: string, contactCount: number, eventCount: number) {
  const contactsSeconds = await timed(() =>
    ctx.db.execute(sql`
      INSERT INTO contacts (project_id, email, subscribed, data, created_at, updated_at)
      SELECT ${projectId}::uuid, 'user' || i || '@example.com', random() < 0.8,
        jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + floor(random() * 3)::int],
          'seats', floor(random() * 50)::int, 'firstName', 'Name' || i),
        at, at
      FROM (SELECT i, now() - random() * interval '730 days' AS at FROM generate_series(1, ${contactCount}) AS i) AS generated`),
  )
  const chunks = 10
  const eventsSeconds = await timed(async () => {
    for (let chunk = 0; chunk < chunks; chunk++) {
      await ctx.db.execute(sql`
        WITH ids AS (SELECT array_agg(id) AS list, count(*)::int AS total FROM contacts WHERE project_id = ${projectId}::uuid)
        INSERT INTO events (id, project_id, contact_id, name, data, created_at, tx_id)
        SELECT lpad(to_hex(${chunk * (eventCount / chunks)} + g), 32, '0')::uuid,
          ${projectId}::uuid, ids.list[1 + floor(random() * ids.total)::int],
          CASE WHEN r < 0.40 THEN 'page_view' WHEN r < 0.55 THEN 'login' WHEN r < 0.65 THEN 'purchase'
            WHEN r < 0.72 THEN 'signup' ELSE 'custom-' || floor(r * 100)::int % 6 END,
          '{}', now() - interval '180 days' + (${chunk} + g::float8 / ${eventCount / chunks}) * interval '18 days', '0'
        FROM ids, (SELECT g, random() AS r FROM generate_series(1, ${eventCount / chunks}) AS g) AS generated`)
    }
  })
  const vacuumSeconds = await timed(() => ctx.db.execute(sql`VACUUM (ANALYZE) contacts, events`))
  return { contactsSeconds, eventsSeconds, vacuumSeconds }
}

const filter = (field: string, operator: string, value?: unknown, unit?: 'days') => ({ field, operator, value, unit })
const plan = filter('data.plan', 'equals', 'pro')
const recent = filter('createdAt', 'within', 365, 'days')
const purchased = filter('event.purchase', 'triggeredWithin', 30, 'days')

const trees: Record<string, ConditionTree> = {
  'plan equals pro AND createdAt within 365 days AND event.purchase triggeredWithin 30 days (the bar)': {
    logic: 'AND',
    groups: [{ filters: [plan, recent, purchased] }],
  },
  'the same three filters ORed': { logic: 'OR', groups: [plan, recent, purchased].map((one) => ({ filters: [one] })) },
  'plan equals pro AND event.purchase notTriggeredWithin 30 days': {
    logic: 'AND',
    groups: [{ filters: [plan, filter('event.purchase', 'notTriggeredWithin', 30, 'days')] }],
  },
  'data.plan equals pro alone': { logic: 'AND', groups: [{ filters: [plan] }] },
}

type PlanNode = { 'Node Type': string; 'Join Type'?: string; 'Subplan Name'?: string; Plans?: PlanNode[] }

/** The plan's nodes, outermost first: "Aggregate > (Hash Semi Join > (Seq Scan, Hash > (...)))". */
function planShape(node: PlanNode): string {
  const join = node['Join Type'] && node['Join Type'] !== 'Inner' ? ` ${node['Join Type']}` : ''
  const subplan = node['Subplan Name'] ? ` [${node['Subplan Name']}]` : ''
  const name = `${node['Node Type']}${join}${subplan}`
  const children = node.Plans ?? []
  return children.length === 0 ? name : `${name} > (${children.map(planShape).join(', ')})`
}

async function explain(ctx: AppContext, query: SQL): Promise<string> {
  const result = await ctx.db.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(sql`EXPLAIN (FORMAT JSON) ${query}`)
  const root = result.rows[0]?.['QUERY PLAN'][0]?.Plan
  return root ? planShape(root) : 'none'
}

export const segmentCount: Benchmark = {
  name: 'segment-count',
  description:
    'countMatchingContacts over 1M contacts and 10M events in one project (three filters, one on events), and ' +
    'one contact evaluated in memory',
  async run({ quick, serverEnv }) {
    const contactCount = quick ? 10_000 : 1_000_000
    const eventCount = quick ? 100_000 : 10_000_000
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
    const config = loadConfig({
      ...process.env,
      DATABASE_URL: serverEnv.DATABASE_URL,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    })
    const ctx = await createAppContext(config, createLogger(config), 'api')
    try {
      const [project] = await ctx.db
        .insert(projects)
        .values({ name: 'bench', ...generateProjectKeys() })
        .returning({ id: projects.id })
      if (!project) throw new Error('no project')
      const load = await generate(ctx, project.id, contactCount, eventCount)

      const counts: Record<string, { medianMs: number; matching: number; plan: string }> = {}
      for (const [name, tree] of Object.entries(trees)) {
        const prepared = await prepareCondition(ctx.db, project.id, tree)
        const matching = await countMatchingContacts(ctx.db, project.id, prepared)
        const median = await medianMs(() => countMatchingContacts(ctx.db, project.id, prepared), runs)
        const plan = await explain(
          ctx,
          sql`SELECT count(*) FROM contacts AS c WHERE c.project_id = ${project.id}::uuid AND ${conditionSql(prepared, sql`c`)}`,
        )
        counts[name] = { medianMs: median, matching, plan }
      }

      // The in-memory back end: a snapshot (one query) and the evaluation, per contact.
      const bar = Object.values(trees)[0]
      if (!bar) throw new Error('no tree')
      const prepared = await prepareCondition(ctx.db, project.id, bar)
      const sample = await ctx.db.execute<{ id: string }>(
        sql`SELECT id FROM contacts WHERE project_id = ${project.id}::uuid ORDER BY random() LIMIT 200`,
      )
      let evaluateMs = 0
      const started = performance.now()
      for (const { id } of sample.rows) {
        const snapshot = await loadContactSnapshot(ctx.db, project.id, id, prepared)
        if (!snapshot) throw new Error('no snapshot')
        const evaluated = performance.now()
        matchesCondition(prepared, snapshot)
        evaluateMs += performance.now() - evaluated
      }
      const totalMs = performance.now() - started
      return {
        contacts: contactCount,
        events: eventCount,
        loadSeconds: load,
        counts,
        barMs: 1_000,
        goalMs: 200,
        perContact: {
          snapshotAndEvaluateMs: Number((totalMs / sample.rows.length).toFixed(2)),
          evaluateMicroseconds: Number(((evaluateMs * 1000) / sample.rows.length).toFixed(1)),
        },
      }
    } finally {
      await ctx.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
}
