import { once } from 'node:events'
import { mkdirSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { campaigns, templates, workflowSteps, workflows, workflowTransitions } from '../src/db/schema/index.js'
import { sendCampaign } from '../src/modules/campaigns/send.js'
import { addSendingProject, startInProcessServer } from './lib/in-process-server.js'
import { reportResult } from './lib/result.js'
import { type SpamFilter, startSpamFilters, type Verdict } from './lib/spam-filters.js'
import { longNewsletter, newsletter, receipt, welcome } from './lib/spam-score-content.js'

/**
 * `npx tsx bench/spam-score.ts`: each kind of mail Mailroom sends (a MARKETING template and a TRANSACTIONAL one
 * through /v1/send, a campaign, a workflow's SEND_EMAIL step, and a campaign long enough to carry the pixel) composed by the real server, DKIM-signed, delivered to
 * a loopback SMTP sink once with the project's tracking ENABLED and once DISABLED, then scored offline by
 * SpamAssassin and Rspamd where installed. Prints JSON: each kind's scores, the difference tracking makes (goal:
 * within 0.1, issue #33) and the rules it adds or removes. Skips cleanly (exit 0) when neither filter is installed.
 * `--keep <dir>` also writes the messages there (`<kind>-tracked.eml`, `<kind>-untracked.eml`).
 */

const { values } = parseArgs({ options: { keep: { type: 'string' } } })

const kinds = [
  'send-marketing-template',
  'send-transactional-template',
  'campaign',
  'workflow',
  'campaign-long',
] as const
type Kind = (typeof kinds)[number]
type Received = { raw: Buffer; from: string; to: string }

function startCapturingSink() {
  const queue: Received[] = []
  const waiting: ((message: Received) => void)[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
        const message = { raw: Buffer.concat(chunks), from, to: session.envelope.rcptTo[0]?.address ?? '' }
        const next = waiting.shift()
        if (next) next(message)
        else queue.push(message)
        callback()
      })
    },
  })
  return {
    async listen() {
      server.listen(0, '127.0.0.1')
      await once(server.server, 'listening')
      return `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`
    },
    next(): Promise<Received> {
      const message = queue.shift()
      if (message) return Promise.resolve(message)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no message within 30 s')), 30_000)
        waiting.push((received) => {
          clearTimeout(timer)
          resolve(received)
        })
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The rules one verdict has and the other lacks (or scores differently), with the change each makes. */
function ruleChanges(untracked: Verdict, tracked: Verdict): Record<string, number> {
  const changes: Record<string, number> = {}
  for (const name of new Set([...Object.keys(untracked.rules), ...Object.keys(tracked.rules)])) {
    const change = (tracked.rules[name] ?? 0) - (untracked.rules[name] ?? 0)
    if (Math.abs(change) > 0.0005) changes[name] = Math.round(change * 1000) / 1000
  }
  return changes
}

async function main() {
  const filters = await startSpamFilters()
  if (filters.length === 0) {
    reportResult('spam-score.json', {
      bench: 'spam-score',
      skipped: 'neither spamassassin nor rspamd (with rspamc) is installed (apt-get install spamassassin rspamd)',
    })
    return
  }
  const sink = startCapturingSink()
  const server = await startInProcessServer({
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: await sink.listen(),
    PUBLIC_URL: 'https://mail.acme-books.example.com',
    CAMPAIGN_RATE_PER_SECOND: '1000000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'error',
  })
  const { ctx, base } = server
  try {
    const domain = 'acme-books.example.com'
    const project = await addSendingProject(ctx, 'Acme Books', domain)
    const from = `news@${domain}`
    const template = async (content: { subject: string; body: string }, type: 'MARKETING' | 'TRANSACTIONAL') => {
      const [row] = await ctx.db
        .insert(templates)
        .values({ projectId: project.id, name: content.subject, ...content, from, type })
        .returning()
      if (!row) throw new Error('no template')
      return row.id
    }
    const newsletterTemplate = await template(newsletter, 'MARKETING')
    const receiptTemplate = await template(receipt, 'TRANSACTIONAL')
    const welcomeTemplate = await template(welcome, 'MARKETING')
    const eventName = 'signed-up'
    const [workflow] = await ctx.db
      .insert(workflows)
      .values({ projectId: project.id, name: 'Welcome', eventName, triggerConfig: { eventName }, enabled: true })
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
          templateId: welcomeTemplate,
        },
      ])
      .returning({ id: workflowSteps.id })
    await ctx.db
      .insert(workflowTransitions)
      .values({ workflowId: workflow.id, fromStepId: steps[0]?.id ?? '', toStepId: steps[1]?.id ?? '' })

    const api = async (path: string, key: string, body: object) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`)
    }

    /** Every kind once, to a recipient of this round's own (same length each round), one message at a time. */
    const sendEachKind = async (round: number): Promise<Record<Kind, Received>> => {
      const to = `reader-${round}@example.net`
      // The campaign's audience is this round's reader alone.
      await ctx.db.execute(sql`UPDATE contacts SET subscribed = false WHERE project_id = ${project.id}`)
      await ctx.db.execute(sql`
        INSERT INTO contacts (project_id, email, subscribed) VALUES (${project.id}, ${to}, true)`)
      const sendCampaignOf = async (content: { subject: string; body: string }) => {
        const [campaign] = await ctx.db
          .insert(campaigns)
          .values({ projectId: project.id, name: `${content.subject} ${round}`, ...content, from, audienceType: 'ALL' })
          .returning()
        if (!campaign) throw new Error('no campaign')
        // The score is about composition: the pre-send check's opinion of the sample content is not asked.
        await sendCampaign(ctx, project.id, campaign.id, undefined, {
          force: true,
          actor: { userId: null, role: 'OWNER' },
        })
        return sink.next()
      }
      const campaignMessage = await sendCampaignOf(newsletter)
      const longCampaignMessage = await sendCampaignOf(longNewsletter)
      await api('/v1/send', project.secretKey, { to, template: newsletterTemplate })
      const marketing = await sink.next()
      await api('/v1/send', project.secretKey, { to, template: receiptTemplate })
      const transactional = await sink.next()
      await api('/v1/track', project.publicKey, { email: to, event: eventName, subscribed: true })
      const workflowMessage = await sink.next()
      return {
        'send-marketing-template': marketing,
        'send-transactional-template': transactional,
        campaign: campaignMessage,
        workflow: workflowMessage,
        'campaign-long': longCampaignMessage,
      }
    }

    const setTracking = (mode: 'ENABLED' | 'DISABLED') =>
      ctx.db.execute(sql`UPDATE projects SET tracking = ${mode} WHERE id = ${project.id}`)
    await setTracking('DISABLED')
    const untracked = await sendEachKind(1)
    await setTracking('ENABLED')
    const tracked = await sendEachKind(2)

    if (values.keep) {
      mkdirSync(values.keep, { recursive: true })
      for (const kind of kinds) {
        writeFileSync(path.join(values.keep, `${kind}-untracked.eml`), untracked[kind].raw)
        writeFileSync(path.join(values.keep, `${kind}-tracked.eml`), tracked[kind].raw)
      }
    }
    const htmlBytes = async (message: Received) => Buffer.byteLength(String((await simpleParser(message.raw)).html))
    const score = (filter: SpamFilter, message: Received) => filter.score(message.raw, message)
    const results: Record<string, unknown> = {}
    for (const kind of kinds) {
      const scores: Record<string, unknown> = {}
      for (const filter of filters) {
        const plain = await score(filter, untracked[kind])
        const withTracking = await score(filter, tracked[kind])
        const difference = Math.round((withTracking.score - plain.score) * 1000) / 1000
        scores[filter.name] = {
          untracked: plain.score,
          tracked: withTracking.score,
          difference,
          withinGoal: Math.abs(difference) <= 0.1,
          ruleChanges: ruleChanges(plain, withTracking),
        }
      }
      results[kind] = {
        htmlBytes: { untracked: await htmlBytes(untracked[kind]), tracked: await htmlBytes(tracked[kind]) },
        ...scores,
      }
    }
    reportResult('spam-score.json', {
      bench: 'spam-score',
      filters: Object.fromEntries(filters.map((filter) => [filter.name, filter.version])),
      loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
      kinds: results,
      at: new Date().toISOString(),
    })
  } finally {
    await server.close()
    await sink.close()
    for (const filter of filters) await filter.close()
  }
}

await main()
