import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { contacts, emails } from '../../../src/db/schema/index.js'
import type { ServerWithDns } from '../../helpers/domains.js'
import { eventually } from '../../helpers/emails.js'
import { type Account, callAs, createContact } from '../../helpers/factories.js'
import { waitOnLoops } from '../../helpers/loops.js'
import type { SmtpSink } from '../../helpers/smtp-sink.js'
import { activeMembers, createSegment, dataEquals, segmentEvents } from '../../segments/helpers.js'
import {
  executionsWhen,
  historyOf,
  insertTemplate,
  insertWorkflow,
  type MailingServer,
  startMailingServer,
  track,
} from './fixtures.js'

const dataOf = async (env: ServerWithDns, contactId: string) => {
  const [row] = await env.server.ctx.db.select({ data: contacts.data }).from(contacts).where(eq(contacts.id, contactId))
  return row?.data
}

describe('workflow executions, end to end', () => {
  let mailing: MailingServer
  let sink: SmtpSink
  let env: ServerWithDns
  let account: Account
  let from: string

  beforeAll(async () => {
    mailing = await startMailingServer('flows')
    ;({ sink, env, account, from } = mailing)
  })
  afterEach(() => sink.reset())
  afterAll(() => mailing.close())

  it('runs a welcome flow: a tracked event, a DELAY, then the email at the sink, rendered for the contact', async () => {
    const { server } = env
    const templateId = await insertTemplate(server, account.project.id, { from })
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'signed-up',
      steps: {
        wait: { type: 'DELAY', config: { amount: 0.02, unit: 'minutes' } },
        welcome: { type: 'SEND_EMAIL', templateId, config: {} },
      },
      edges: [
        ['trigger', 'wait'],
        ['wait', 'welcome'],
      ],
    })
    const contact = await createContact(server, account, { data: { name: 'Ann' } })
    const trackedAt = Date.now()
    await track(server, account, contact.email, 'signed-up', { plan: 'pro' })

    const [waiting] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'WAITING')
    expect(waiting?.dueAt?.getTime()).toBeGreaterThan(trackedAt + 1_000)
    expect(sink.messages).toHaveLength(0)
    const upcoming = await callAs(server, account)('GET', '/activity/upcoming')
    expect(upcoming.json().data).toContainEqual(
      expect.objectContaining({
        type: 'workflow.waiting',
        timestamp: waiting?.dueAt?.toISOString(),
        contact: { id: contact.id, email: contact.email },
        data: expect.objectContaining({ executionId: waiting?.id, workflowId: workflow.id, waitingFor: null }),
      }),
    )

    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.to).toEqual([contact.email])
    expect(message?.parsed.subject).toBe('Welcome Ann')
    expect(message?.receivedAt).toBeGreaterThanOrEqual(trackedAt + 1_200)
    const [done] = await executionsWhen(server, workflow.id, (rows) => rows[0]?.status === 'COMPLETED')
    expect(done).toMatchObject({ triggerKind: 'EVENT', context: { plan: 'pro' }, currentStepId: null, dueAt: null })
    expect(await historyOf(server, done?.id ?? '')).toEqual([
      'trigger:COMPLETED',
      'wait:COMPLETED',
      'welcome:COMPLETED',
    ])
    const sent = await server.ctx.db
      .select({ sourceType: emails.sourceType, contactId: emails.contactId, templateId: emails.templateId })
      .from(emails)
      .where(eq(emails.toEmail, contact.email))
    expect(sent).toEqual([{ sourceType: 'WORKFLOW', contactId: contact.id, templateId }])
    // The feed shows the run's start and end; the stats count the start.
    const feed = await waitOnLoops(async () => {
      const response = await callAs(server, account)(
        'GET',
        `/activity?contactId=${contact.id}&types=workflow.started,workflow.completed`,
      )
      const items = response.json<{ data: { type: string; data: Record<string, unknown> }[] }>().data
      if (items.length < 2) throw new Error('not yet')
      return items
    }, eventually.timeout)
    expect(feed.map((item) => item.type)).toEqual(['workflow.completed', 'workflow.started'])
    expect(feed[0]?.data).toMatchObject({ workflowId: workflow.id, executionId: done?.id, status: 'COMPLETED' })
    const stats = await callAs(server, account)('GET', '/activity/stats')
    expect(stats.json().totalWorkflowsStarted).toBeGreaterThanOrEqual(1)
  })

  it('ends a WAIT_FOR_EVENT by its event in one execution and by its timeout in another, on their own ways', async () => {
    const { server } = env
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'cart-filled',
      steps: {
        wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'paid', timeout: 1 } },
        thanks: { type: 'UPDATE_CONTACT', config: { updates: { paid: true } } },
        remind: { type: 'UPDATE_CONTACT', config: { updates: { reminded: true } } },
      },
      edges: [
        ['trigger', 'wait'],
        ['wait', 'thanks', { waitOutcome: 'EVENT' }],
        ['wait', 'remind', { waitOutcome: 'TIMEOUT' }],
      ],
    })
    const buyer = await createContact(server, account)
    const browser = await createContact(server, account)
    await track(server, account, buyer.email, 'paid')
    await track(server, account, buyer.email, 'cart-filled')
    await track(server, account, browser.email, 'cart-filled')
    await executionsWhen(
      server,
      workflow.id,
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'WAITING'),
    )
    await track(server, account, buyer.email, 'paid', { amount: 42 })

    const rows = await executionsWhen(server, workflow.id, (all) => all.every((row) => row.status === 'COMPLETED'))
    const byContact = new Map(rows.map((row) => [row.contactId, row]))
    expect(byContact.get(buyer.id)?.context).toEqual({ amount: 42 })
    // Tracked data is merged into the contact's data (as /v1/track does); the step's keys are what matter.
    expect(await dataOf(env, buyer.id)).toMatchObject({ paid: true })
    expect(await dataOf(env, buyer.id)).not.toHaveProperty('reminded')
    expect(await dataOf(env, browser.id)).toMatchObject({ reminded: true })
    expect(await dataOf(env, browser.id)).not.toHaveProperty('paid')
    expect(await historyOf(server, byContact.get(buyer.id)?.id ?? '')).toEqual([
      'trigger:COMPLETED',
      'wait:COMPLETED',
      'thanks:COMPLETED',
    ])
    expect(await historyOf(server, byContact.get(browser.id)?.id ?? '')).toEqual([
      'trigger:COMPLETED',
      'wait:COMPLETED',
      'remind:COMPLETED',
    ])
  })

  it('takes both ways of a CONDITION, on the trigger event and on contact data, and EXIT ends with its reason', async () => {
    const { server } = env
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'ordered',
      steps: {
        big: { type: 'CONDITION', config: { field: 'event.total', operator: 'greaterThan', value: 100 } },
        vip: { type: 'UPDATE_CONTACT', config: { updates: { tier: 'big' } } },
        pro: { type: 'CONDITION', config: { field: 'contact.data.plan', operator: 'equals', value: 'pro' } },
        leave: { type: 'EXIT', config: { reason: 'pro customers get their own flow' } },
        small: { type: 'UPDATE_CONTACT', config: { updates: { tier: 'small' } } },
      },
      edges: [
        ['trigger', 'big'],
        ['big', 'vip', { branch: 'yes' }],
        ['big', 'pro', { branch: 'no' }],
        ['pro', 'leave', { branch: 'yes' }],
        ['pro', 'small', { branch: 'no' }],
      ],
    })
    const spender = await createContact(server, account, { data: { plan: 'free' } })
    const proUser = await createContact(server, account, { data: { plan: 'pro' } })
    const saver = await createContact(server, account, { data: { plan: 'free' } })
    await track(server, account, spender.email, 'ordered', { total: 150 })
    await track(server, account, proUser.email, 'ordered', { total: 10 })
    await track(server, account, saver.email, 'ordered', { total: 10 })

    const rows = await executionsWhen(
      server,
      workflow.id,
      (all) => all.length === 3 && all.every((row) => row.status === 'COMPLETED' || row.status === 'EXITED'),
    )
    const byContact = new Map(rows.map((row) => [row.contactId, row]))
    expect(await dataOf(env, spender.id)).toMatchObject({ tier: 'big' })
    expect(byContact.get(proUser.id)).toMatchObject({
      status: 'EXITED',
      exitReason: 'pro customers get their own flow',
    })
    expect(await dataOf(env, proUser.id)).not.toHaveProperty('tier')
    expect(await dataOf(env, saver.id)).toMatchObject({ tier: 'small' })
    expect(await historyOf(server, byContact.get(saver.id)?.id ?? '')).toEqual([
      'trigger:COMPLETED',
      'big:COMPLETED',
      'pro:COMPLETED',
      'small:COMPLETED',
    ])
  })

  it('UPDATE_CONTACT moves each contact of a batch into a tracked segment, with one entry event each', async () => {
    const { server } = env
    const segment = await createSegment(server, account, {
      name: 'Upgraded',
      condition: dataEquals('upgraded', true),
      trackMembership: true,
    })
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'upgraded',
      steps: { mark: { type: 'UPDATE_CONTACT', config: { updates: { upgraded: true } } } },
      edges: [['trigger', 'mark']],
    })
    const upgraded = await Promise.all(Array.from({ length: 5 }, () => createContact(server, account)))
    const bystander = await createContact(server, account)
    await Promise.all(upgraded.map((contact) => track(server, account, contact.email, 'upgraded')))

    await executionsWhen(
      server,
      workflow.id,
      (rows) => rows.length === 5 && rows.every((row) => row.status === 'COMPLETED'),
    )
    const ids = upgraded.map((contact) => contact.id).sort()
    expect(await activeMembers(server, segment.id)).toEqual(ids)
    const entries = (await segmentEvents(server, account.project.id)).filter(
      (event) => event.name === 'segment.upgraded.entry',
    )
    expect(entries.map((event) => event.contactId).sort()).toEqual(ids)
    expect(ids).not.toContain(bystander.id)
  })

  it('a database error in one execution fails only that one: its batch completes, it is postponed, not spun', async () => {
    const { server } = env
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'renewed',
      steps: { mark: { type: 'UPDATE_CONTACT', config: { updates: { renewed: true } } } },
      edges: [['trigger', 'mark']],
    })
    const fine = await Promise.all(Array.from({ length: 4 }, () => createContact(server, account)))
    const broken = await createContact(server, account)
    await server.ctx.pool.query(`
      CREATE FUNCTION refuse_broken() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$;
      CREATE TRIGGER refuse_broken BEFORE UPDATE ON contacts FOR EACH ROW
        WHEN (NEW.id = '${broken.id}' AND NEW.data ? 'renewed') EXECUTE FUNCTION refuse_broken();`)
    try {
      await Promise.all([...fine, broken].map((contact) => track(server, account, contact.email, 'renewed')))
      const rows = await executionsWhen(
        server,
        workflow.id,
        (found) =>
          found.filter((row) => row.status === 'COMPLETED').length === 4 &&
          found.some((row) => row.contactId === broken.id && row.leasedUntil !== null),
      )
      const stuck = rows.find((row) => row.contactId === broken.id)
      expect(stuck?.status).toBe('RUNNING')
      // Held back by a lease of about half a minute instead of being claimed again at once.
      expect(stuck?.leasedUntil?.getTime()).toBeGreaterThan(Date.now() + 20_000)
      expect(await dataOf(env, broken.id)).not.toHaveProperty('renewed')
      for (const contact of fine) expect(await dataOf(env, contact.id)).toMatchObject({ renewed: true })
    } finally {
      await server.ctx.pool.query('DROP TRIGGER refuse_broken ON contacts; DROP FUNCTION refuse_broken();')
    }
  })

  it('starts once per contact ever without re-entry, and never two active with it, under 20 concurrent events', async () => {
    const { server } = env
    const once = await insertWorkflow(server, account.project.id, {
      eventName: 'visited',
      steps: { note: { type: 'UPDATE_CONTACT', config: { updates: { visited: true } } } },
      edges: [['trigger', 'note']],
    })
    const again = await insertWorkflow(server, account.project.id, {
      eventName: 'visited',
      allowReentry: true,
      steps: { hold: { type: 'WAIT_FOR_EVENT', config: { eventName: 'left' } } },
      edges: [['trigger', 'hold']],
    })
    const contact = await createContact(server, account)
    await Promise.all(Array.from({ length: 20 }, () => track(server, account, contact.email, 'visited')))

    await executionsWhen(server, once.id, (rows) => rows[0]?.status === 'COMPLETED')
    await executionsWhen(server, again.id, (rows) => rows[0]?.status === 'WAITING')
    // Every event has been dispatched (the one workflow's run proves the batch passed); give stragglers a moment.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await executionsWhen(server, once.id, () => true)).toHaveLength(1)
    expect(await executionsWhen(server, again.id, () => true)).toHaveLength(1)

    await track(server, account, contact.email, 'left')
    await executionsWhen(server, again.id, (rows) => rows[0]?.status === 'COMPLETED')
    await track(server, account, contact.email, 'visited')
    const rows = await executionsWhen(server, again.id, (all) => all.length === 2 && all[1]?.status === 'WAITING')
    expect(rows.map((row) => row.status)).toEqual(['COMPLETED', 'WAITING'])
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await executionsWhen(server, once.id, () => true)).toHaveLength(1)
  })

  it('skips a MARKETING email to an unsubscribed contact and goes on', async () => {
    const { server } = env
    const templateId = await insertTemplate(server, account.project.id, { from, type: 'MARKETING' })
    const workflow = await insertWorkflow(server, account.project.id, {
      eventName: 'promo',
      steps: { offer: { type: 'SEND_EMAIL', templateId, config: {} } },
      edges: [['trigger', 'offer']],
    })
    const gone = await createContact(server, account, { subscribed: false })
    const reader = await createContact(server, account, { data: { name: 'Bo' } })
    await track(server, account, gone.email, 'promo')
    await track(server, account, reader.email, 'promo')
    await executionsWhen(
      server,
      workflow.id,
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'COMPLETED'),
    )
    const [message] = await sink.waitForMessages(1)
    expect(message?.envelope.to).toEqual([reader.email])
    expect(message?.raw.toString()).toMatch(/^List-Unsubscribe:\s+<http/m)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(sink.messages).toHaveLength(1)
  })
})
