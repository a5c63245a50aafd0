import { sql } from 'drizzle-orm'
import { expect, vi } from 'vitest'
import { trackedLinkId } from '../../src/mail/outbound/tracking-links.js'
import { createSubmissionHandler } from '../../src/modules/relay/handler.js'
import { waitForDispatch } from '../helpers/events.js'
import { type Account, bearer, callAs, createAccount, createContact, uniqueEmail } from '../helpers/factories.js'
import type { TestServer } from '../helpers/server.js'
import { png, postImage } from '../uploads/upload-helpers.js'

export type SeededProject = { owner: Account; admin: Account; domainId: string; contactIds: string[] }

async function ok(response: { statusCode: number; body: string }, status: number): Promise<void> {
  expect(response.statusCode, response.body).toBe(status)
}

/**
 * A project with a row in every kind of table a user's work fills: a domain, contacts, a sent and captured email
 * (with an Idempotency-Key), a relayed one, events, a template, a segment, a campaign, a workflow with a waiting execution, a bulk
 * job and its pg-boss job, a webhook endpoint and a message of its log, an uploaded image, a suppression, an inbound message record, a tracked link, billing caps and usage,
 * and a second member.
 */
export async function seedProject(server: TestServer, name = 'Seeded project'): Promise<SeededProject> {
  const owner = await createAccount(server, name)
  const admin = await createAccount(server, 'Admin own project')
  const call = callAs(server, owner)
  const projectId = owner.project.id
  await server.ctx.db.execute(
    sql`INSERT INTO memberships (project_id, user_id, role) VALUES (${projectId}, ${admin.userId}, 'ADMIN')`,
  )

  const domain = await call('POST', '/domains', { domain: `${name.toLowerCase().replace(/\W+/g, '')}.example.com` })
  await ok(domain, 201)
  const from = `hello@${domain.json<{ domain: string }>().domain}`
  const contacts = [await createContact(server, owner), await createContact(server, owner)]

  const send = await server.app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(owner.secretKey), 'idempotency-key': `seed-${projectId}` },
    payload: { to: uniqueEmail('to'), from, subject: 'Hi', body: '<p>Hi</p>' },
  })
  await ok(send, 200)
  // A message taken over SMTP submission, stored once for its recipient.
  const relayedTo = uniqueEmail('relayed')
  await createSubmissionHandler(server.ctx).accept({
    projectId,
    mailFrom: from,
    recipients: [relayedTo],
    raw: Buffer.from(`From: ${from}\r\nTo: ${relayedTo}\r\nSubject: Relayed\r\n\r\nHi\r\n`),
    remoteAddress: '127.0.0.1',
  })
  await ok(
    await call('POST', '/v1/track', { email: contacts[0]?.email, event: 'signed-up', data: { plan: 'pro' } }),
    200,
  )
  // A webhook endpoint (kept by a reset) and a message in its delivery log (wiped); nothing listens at the address.
  const webhook = await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['email.*'] })
  await ok(webhook, 201)
  await ok(await call('POST', `/webhooks/${webhook.json<{ id: string }>().id}/test`), 202)
  const template = await call('POST', '/templates', { name: 'Welcome', subject: 'Hi', body: '<p>Hi</p>', from })
  await ok(template, 201)
  await ok(
    await call('POST', '/segments', {
      name: 'Pro',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
    }),
    201,
  )
  await ok(
    await call('POST', '/campaigns', { name: 'News', subject: 'News', body: '<p>News</p>', from, audienceType: 'ALL' }),
    201,
  )
  const workflow = await call('POST', '/workflows', { name: 'Welcome', eventName: 'signed-up' })
  await ok(workflow, 201)
  const workflowId = workflow.json<{ id: string }>().id
  await ok(
    await call('POST', `/workflows/${workflowId}/steps`, {
      type: 'DELAY',
      name: 'Wait',
      position: { x: 1, y: 2 },
      config: { amount: 1, unit: 'hours' },
    }),
    201,
  )
  await ok(await call('PATCH', `/workflows/${workflowId}`, { enabled: true }), 200)
  await ok(await call('POST', `/workflows/${workflowId}/executions`, { contactId: contacts[1]?.id }), 201)
  await ok(await call('POST', '/contacts/bulk-subscribe', { contactIds: contacts.map((contact) => contact.id) }), 202)

  const form = new FormData()
  form.append('file', new Blob([`email\n${uniqueEmail('imported')}\n`], { type: 'text/csv' }), 'contacts.csv')
  const imported = await fetch(`${server.url}/contacts/import`, {
    method: 'POST',
    headers: bearer(owner.secretKey),
    body: form,
  })
  expect(imported.status).toBe(202)
  await ok(await postImage(server, owner, await png()), 200)
  await server.ctx.db.execute(sql`
    INSERT INTO suppressions (project_id, email, reason) VALUES (${projectId}, ${uniqueEmail('bounced')}, 'bounce')`)
  // A link of tracked mail, as the outbox stores it before the email leaves (kept by a reset, gone with the project).
  await server.ctx.db.execute(sql`
    INSERT INTO tracked_links (id, project_id, url)
    VALUES (${trackedLinkId(projectId, 'https://example.com/seeded')}, ${projectId}, 'https://example.com/seeded')`)
  await server.ctx.db.execute(sql`
    INSERT INTO inbound_emails (project_id, source, message_id) VALUES (${projectId}, 'smtp', ${`in-${projectId}`})`)
  // A job that names the project itself, waiting far in the future (a later feature's kind of job).
  await server.ctx.boss.send('contacts-bulk', { projectId }, { startAfter: 3_600 })
  await ok(
    await server.app.inject({
      method: 'PUT',
      url: `/users/@me/projects/${projectId}/billing-limits`,
      headers: { cookie: owner.cookie },
      payload: { transactional: 1000, campaigns: null, workflows: null, inbound: null },
    }),
    200,
  )

  // The import and the bulk job have run: a contact they add or an event they record later would make the
  // "nothing changes" comparisons flaky.
  await vi.waitFor(
    async () => {
      const pending = await server.ctx.db.execute<{ state: string }>(sql`
        SELECT state FROM contact_imports WHERE project_id = ${projectId}
        UNION ALL SELECT state FROM contact_bulk_jobs WHERE project_id = ${projectId}`)
      expect(pending.rows.map((row) => row.state)).toEqual(['completed', 'completed'])
    },
    { timeout: 30_000, interval: 50 },
  )
  // The outbox has delivered both emails into the local mailbox (captured_messages).
  await vi.waitFor(
    async () => {
      const captured = await server.ctx.db.execute<{ count: number }>(
        sql`SELECT count(*)::int AS count FROM captured_messages WHERE project_id = ${projectId}`,
      )
      const emails = await server.ctx.db.execute(
        sql`SELECT status, attempts, last_error, next_attempt_at, now() AS now FROM emails WHERE project_id = ${projectId}`,
      )
      expect(captured.rows[0]?.count, JSON.stringify(emails.rows)).toBe(2)
      // Its outcome too, which publishes email.sent for the dispatcher below: a later rollup row would make the
      // "nothing changes" comparisons flaky.
      expect(emails.rows.filter((row) => row.status === 'QUEUED' || row.status === 'SENDING')).toEqual([])
    },
    { timeout: 30_000, interval: 50 },
  )
  // The engine has walked the run to its DELAY, publishing workflow.started for the dispatcher below.
  await vi.waitFor(
    async () => {
      const runs = await server.ctx.db.execute<{ status: string }>(
        sql`SELECT status FROM workflow_executions WHERE project_id = ${projectId}`,
      )
      expect(runs.rows.length).toBeGreaterThan(0)
      expect(runs.rows.filter((row) => row.status !== 'WAITING')).toEqual([])
    },
    { timeout: 20_000, interval: 50 },
  )
  // The dispatcher has counted the project's events (the hourly rollup) and run its workflow trigger.
  await waitForDispatch(server, projectId)
  const campaign = await server.ctx.db.execute<{ id: string }>(
    sql`SELECT id FROM campaigns WHERE project_id = ${projectId}`,
  )
  // Campaign counts come from email events of a sent campaign; one row stands for them.
  await server.ctx.db.execute(sql`
    INSERT INTO campaign_event_counts (project_id, campaign_id, name, count, unique_count)
    VALUES (${projectId}, ${campaign.rows[0]?.id}, 'email.open', 1, 1)`)
  return {
    owner,
    admin,
    domainId: domain.json<{ id: string }>().id,
    contactIds: contacts.map((contact) => contact.id),
  }
}
