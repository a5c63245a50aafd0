import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { parseSesInbound } from '../../src/mail/aws/ses-inbound.js'
import { handleSesInboundNotification } from '../../src/modules/inbound/service.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, createAccount } from '../helpers/factories.js'
import { createSnsSigner } from '../helpers/sns-signer.js'
import { contactOf, eventsNamed } from './helpers.js'

const signer = createSnsSigner('inbound')
let env: ServerWithDns
let owner: Account
let pending: Account
let stranger: Account

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../fixtures/ses/${name}.json`, import.meta.url), 'utf8'))
}

beforeAll(async () => {
  env = await startServerWithDns({ snsTrust: signer.trust })
  owner = await createAccount(env.server, 'Owner')
  pending = await createAccount(env.server, 'Pending')
  stranger = await createAccount(env.server, 'Stranger')
  // The SES example is addressed to recipient@example.com.
  await addVerifiedDomain(env.server, env.dns, owner, 'example.com')
  await addDomain(env.server, pending, 'example.com')
})
afterAll(async () => {
  await env?.close()
})
beforeEach(async () => {
  await env.server.ctx.pool.query("DELETE FROM events WHERE name = 'email.received'")
  await env.server.ctx.pool.query('DELETE FROM inbound_emails')
})

describe('SES Received notifications', () => {
  it('become an email.received event for the project that verified the domain, and no other', async () => {
    const result = await handleSesInboundNotification(env.server.ctx, JSON.stringify(fixture('received-sns-action')))
    expect(result).toEqual({
      kind: 'received',
      outcome: { projectIds: [owner.project.id], unsubscribes: 0, complaints: 0 },
    })

    const events = await eventsNamed(env.server, 'email.received')
    expect(events).toHaveLength(1)
    expect(events[0]?.project_id).toBe(owner.project.id)
    // Field by field, the parser's own test checks these against the SES example.
    const parsed = await parseSesInbound(fixture('received-sns-action'))
    if (parsed.kind !== 'received') throw new Error(`the SES example did not parse: ${parsed.reason}`)
    expect(events[0]?.data).toEqual(parsed.message)
    expect(events[0]?.data).toMatchObject({ messageId: 'd6iitobk75ur44p8kdnnp7g2n800', to: 'recipient@example.com' })
    // The author is the contact, created unsubscribed; projects without the verified domain get nothing.
    const contact = await contactOf(env.server, owner.project.id, 'sender@example.com')
    expect(contact).toEqual({ id: events[0]?.contact_id, subscribed: false })
    for (const other of [pending, stranger]) {
      expect(await contactOf(env.server, other.project.id, 'sender@example.com')).toBeUndefined()
    }
  })

  it('a redelivered notification publishes nothing new', async () => {
    const message = JSON.stringify(fixture('received-sns-action'))
    await handleSesInboundNotification(env.server.ctx, message)
    const again = await handleSesInboundNotification(env.server.ctx, message)
    expect(again).toEqual({ kind: 'received', outcome: { projectIds: [], unsubscribes: 0, complaints: 0 } })
    expect(await eventsNamed(env.server, 'email.received')).toHaveLength(1)
  })

  it('recipients outside every verified domain are dropped; a notification with none of ours stores nothing', async () => {
    const notification = fixture('received-s3-action')
    const receipt = notification.receipt as Record<string, unknown>
    const foreign = { ...notification, receipt: { ...receipt, recipients: ['someone@elsewhere.example'] } }
    expect(await handleSesInboundNotification(env.server.ctx, foreign)).toEqual({
      kind: 'received',
      outcome: { projectIds: [], unsubscribes: 0, complaints: 0 },
    })
    const mixed = {
      ...notification,
      receipt: { ...receipt, recipients: ['x@elsewhere.example', 'recipient@example.com'] },
    }
    await handleSesInboundNotification(env.server.ctx, mixed)
    const events = await eventsNamed(env.server, 'email.received')
    expect(events.map((event) => [event.project_id, event.data.recipients, event.data.hasContent])).toEqual([
      [owner.project.id, ['recipient@example.com'], false],
    ])
  })

  it('arrive through POST /webhooks/email-provider as signed SNS notifications', async () => {
    const notification = signer.notification(fixture('received-sns-action'))
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await fetch(`${env.server.url}/webhooks/email-provider`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=UTF-8' },
        body: JSON.stringify(notification),
      })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ success: true, data: { outcome: 'inbound' } })
    }
    const events = await eventsNamed(env.server, 'email.received')
    expect(events.map((event) => [event.project_id, event.data.to])).toEqual([
      [owner.project.id, 'recipient@example.com'],
    ])
  })

  it('anything but a Received notification is ignored without a change', async () => {
    for (const message of ['{', JSON.stringify(fixture('notification-bounce')), { notificationType: 'Received' }]) {
      expect(await handleSesInboundNotification(env.server.ctx, message)).toMatchObject({ kind: 'ignored' })
    }
    expect(await eventsNamed(env.server, 'email.received')).toEqual([])
  })
})
