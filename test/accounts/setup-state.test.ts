import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { campaignBody, createCampaignOk } from '../campaigns/campaign-fixtures.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { eventually } from '../helpers/emails.js'
import { bearer, createAccount, createContact } from '../helpers/factories.js'
import { addMember } from '../helpers/members.js'

let env: ServerWithDns

beforeAll(async () => {
  env = await startServerWithDns({ config: { mailTransport: 'capture' } })
})
afterAll(() => env.close())

describe('GET /projects/:id/setup-state', () => {
  it('reports each onboarding step as it happens, to any member', async () => {
    const { server, dns } = env
    const owner = await createAccount(server)
    const member = await addMember(server, owner, 'MEMBER')
    const state = async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/projects/${owner.project.id}/setup-state`,
        headers: { cookie: member.cookie },
      })
      expect(response.statusCode).toBe(200)
      return response.json().data
    }
    const none = {
      domainAdded: false,
      domainVerified: false,
      firstEmailSent: false,
      firstEventTracked: false,
      firstContact: false,
      firstCampaign: false,
      firstWorkflow: false,
      hasSubscription: false,
    }
    expect(await state()).toEqual(none)

    await addDomain(server, owner, 'pending.example.test')
    expect(await state()).toEqual({ ...none, domainAdded: true })
    await addVerifiedDomain(server, dns, owner, 'setup.example.test')
    await createContact(server, owner)
    const call = (url: string, payload: object) =>
      server.app.inject({ method: 'POST', url, headers: bearer(owner.secretKey), payload })
    expect((await call('/v1/track', { event: 'signed-up', email: 'someone@example.org' })).statusCode).toBe(200)
    await createCampaignOk(server, owner, campaignBody('news@setup.example.test'))
    expect((await call('/workflows', { name: 'Welcome', eventName: 'signed-up' })).statusCode).toBe(201)
    expect(await state()).toEqual({
      ...none,
      domainAdded: true,
      domainVerified: true,
      firstEventTracked: true,
      firstContact: true,
      firstCampaign: true,
      firstWorkflow: true,
    })

    const sent = await call('/v1/send', {
      to: 'reader@example.org',
      subject: 'Hi',
      body: '<p>Hi</p>',
      from: 'hi@setup.example.test',
    })
    expect(sent.statusCode).toBe(200)
    // The first send of a server starts its compose threads, which is slow on a loaded machine.
    await vi.waitFor(async () => expect((await state()).firstEmailSent).toBe(true), { ...eventually, timeout: 60_000 })
  })

  it('ticks the first event for a tracked event only, not for the email.sent of the first send', async () => {
    const { server, dns } = env
    const owner = await createAccount(server)
    await addVerifiedDomain(server, dns, owner, 'first-event.example.test')
    const state = async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/projects/${owner.project.id}/setup-state`,
        headers: { cookie: owner.cookie },
      })
      expect(response.statusCode).toBe(200)
      return response.json().data
    }
    const call = (url: string, payload: object) =>
      server.app.inject({ method: 'POST', url, headers: bearer(owner.secretKey), payload })
    const sent = await call('/v1/send', {
      to: 'reader@example.org',
      subject: 'Hi',
      body: '<p>Hi</p>',
      from: 'hi@first-event.example.test',
    })
    expect(sent.statusCode).toBe(200)
    await vi.waitFor(async () => expect((await state()).firstEmailSent).toBe(true), { ...eventually, timeout: 60_000 })
    // The send wrote email.sent (and contact.subscribed for the new contact) to the event log: not tracked events.
    const names = await server.ctx.pool.query<{ name: string }>(
      'SELECT DISTINCT name FROM events WHERE project_id = $1 ORDER BY name',
      [owner.project.id],
    )
    expect(names.rows.map((row) => row.name)).toContain('email.sent')
    expect(await state()).toMatchObject({ firstEmailSent: true, firstEventTracked: false })

    expect((await call('/v1/track', { event: 'signed-up', email: 'reader@example.org' })).statusCode).toBe(200)
    expect(await state()).toMatchObject({ firstEmailSent: true, firstEventTracked: true })
  })

  it("another user's project and another project's key get 404", async () => {
    const { server } = env
    const owner = await createAccount(server)
    const stranger = await createAccount(server)
    for (const headers of [{ cookie: stranger.cookie }, bearer(stranger.secretKey)]) {
      const response = await server.app.inject({
        method: 'GET',
        url: `/projects/${owner.project.id}/setup-state`,
        headers,
      })
      expect(response.statusCode).toBe(404)
      expect(response.json().error.code).toBe('NOT_FOUND')
    }
    const own = await server.app.inject({
      method: 'GET',
      url: `/projects/${owner.project.id}/setup-state`,
      headers: bearer(owner.secretKey),
    })
    expect(own.statusCode).toBe(200)
  })
})
