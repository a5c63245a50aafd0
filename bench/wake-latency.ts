import { availableParallelism, loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { campaigns, templates, workflowSteps, workflows, workflowTransitions } from '../src/db/schema/index.js'
import { sendCampaign } from '../src/modules/campaigns/send.js'
import { startCountingSink } from './lib/counting-sink.js'
import { addSendingProject, startInProcessServer } from './lib/in-process-server.js'
import { percentile } from './lib/percentile.js'
import { reportResult } from './lib/result.js'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '40' } } })
const rounds = Number(values.rounds)
const domain = 'wake.bench.example'
/** Sends as the API does for the secret key (the project's owner), without overriding the pre-send check. */
const asSecretKey = { force: false, actor: { userId: null, role: 'OWNER' as const } }

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    n: sorted.length,
    p50: Math.round(percentile(sorted, 0.5)),
    p95: Math.round(percentile(sorted, 0.95)),
    max: Math.round(sorted.at(-1) ?? 0),
  }
}

async function main() {
  const sink = await startCountingSink()
  const server = await startInProcessServer({
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: sink.url,
    CAMPAIGN_RATE_PER_SECOND: '1000000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'error',
  })
  const { ctx, base } = server

  /** A project sending from its own verified domain. */
  const newProject = async (name: string) => {
    const project = await addSendingProject(ctx, name, `${name}.${domain}`)
    return { ...project, from: (local: string) => `${local}@${name}.${domain}` }
  }
  const project = await newProject('track')
  const [template] = await ctx.db
    .insert(templates)
    .values({
      projectId: project.id,
      name: 'Welcome',
      subject: 'Welcome',
      body: '<p>Hello</p>',
      from: project.from('hi'),
    })
    .returning()
  if (!template) throw new Error('no template')
  const eventName = 'signed-up'
  const [workflow] = await ctx.db
    .insert(workflows)
    .values({ projectId: project.id, name: eventName, eventName, triggerConfig: { eventName }, enabled: true })
    .returning()
  if (!workflow) throw new Error('no workflow')
  const steps = await ctx.db
    .insert(workflowSteps)
    .values([
      { workflowId: workflow.id, type: 'TRIGGER', name: 'trigger', position: { x: 0, y: 0 }, config: { eventName } },
      {
        workflowId: workflow.id,
        type: 'SEND_EMAIL',
        name: 'welcome',
        position: { x: 0, y: 100 },
        config: {},
        templateId: template.id,
      },
    ])
    .returning({ id: workflowSteps.id })
  await ctx.db
    .insert(workflowTransitions)
    .values({ workflowId: workflow.id, fromStepId: steps[0]?.id ?? '', toStepId: steps[1]?.id ?? '' })

  /** Waits for the sink's next message; returns the milliseconds from `started`. */
  const nextArrival = async (started: number, before: number) => {
    await sink.waitFor(before + 1)
    return performance.now() - started
  }
  const settleRandomly = () => pause(300 + Math.random() * 400)

  // Two rounds of each first, not counted: the first requests compile code paths and warm the caches.
  const warmUp = 2
  const track: number[] = []
  for (let round = -warmUp; round < rounds; round++) {
    await settleRandomly()
    const before = sink.received()
    const started = performance.now()
    const response = await fetch(`${base}/v1/track`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.publicKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `reader-${round + warmUp}@example.org`, event: eventName }),
    })
    if (!response.ok) throw new Error(`track answered ${response.status}`)
    const ms = await nextArrival(started, before)
    if (round >= 0) track.push(ms)
  }

  // The campaigns' project, whose audience is one subscribed contact.
  const campaignProject = await newProject('campaign')
  await ctx.db.execute(sql`
    INSERT INTO contacts (project_id, email, subscribed) VALUES (${campaignProject.id}, 'reader@example.org', true)`)
  const send: number[] = []
  for (let round = -warmUp; round < rounds; round++) {
    const [campaign] = await ctx.db
      .insert(campaigns)
      .values({
        projectId: campaignProject.id,
        name: `Wake ${round}`,
        subject: 'News',
        body: '<p>News</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
        from: campaignProject.from('news'),
        audienceType: 'ALL',
      })
      .returning()
    if (!campaign) throw new Error('no campaign')
    await settleRandomly()
    const before = sink.received()
    const started = performance.now()
    await sendCampaign(ctx, campaignProject.id, campaign.id, undefined, asSecretKey)
    const ms = await nextArrival(started, before)
    if (round >= 0) send.push(ms)
  }

  // The loops' own share, on PostgreSQL's clock (each row's time is its transaction's start): from the event's row
  // to the first step's record, and from the campaign's start to its email's row. Less disturbed by the outbox and
  // the sink than the end-to-end times above.
  const stepPickups = await ctx.db.execute<{ ms: number }>(sql`
    SELECT extract(epoch FROM h.created_at - e.created_at) * 1000 AS ms
    FROM workflow_executions x
    JOIN events e ON e.id = x.trigger_event_id
    JOIN workflow_step_executions h ON h.execution_id = x.id AND h.step_type = 'SEND_EMAIL'
    WHERE x.workflow_id = ${workflow.id}
    ORDER BY x.started_at OFFSET ${warmUp}`)
  const campaignPickups = await ctx.db.execute<{ ms: number }>(sql`
    SELECT extract(epoch FROM min(m.created_at) - c.sent_at) * 1000 AS ms
    FROM campaigns c JOIN emails m ON m.campaign_id = c.id
    WHERE c.project_id = ${campaignProject.id}
    GROUP BY c.id, c.sent_at ORDER BY c.sent_at OFFSET ${warmUp}`)

  reportResult(`wake-latency-${Date.now()}.json`, {
    bench: 'wake-latency',
    cores: availableParallelism(),
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
    database: ctx.config.databaseUrl ? 'DATABASE_URL' : 'embedded',
    trackToFirstStepEmailMs: summary(track),
    sendToFirstCampaignEmailMs: summary(send),
    eventToFirstStepRecordMs: summary(stepPickups.rows.map((row) => Number(row.ms))),
    campaignStartToFirstEmailRowMs: summary(campaignPickups.rows.map((row) => Number(row.ms))),
    at: new Date().toISOString(),
  })

  await server.close()
  await sink.close()
}

await main()
