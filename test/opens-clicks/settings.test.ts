import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProjectView } from '../../src/modules/projects/schemas.js'
import { type Account, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let owner: Account
let stranger: Account

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  owner = await createAccount(server, 'Owner')
  stranger = await createAccount(server, 'Stranger')
})
afterAll(() => server.close())

const patch = (account: Account, projectId: string, payload: object) =>
  server.app.inject({
    method: 'PATCH',
    url: `/users/@me/projects/${projectId}`,
    headers: { cookie: account.cookie },
    payload,
  })

async function trackingOf(account: Account, projectId: string) {
  const list = await server.app.inject({
    method: 'GET',
    url: '/users/@me/projects',
    headers: { cookie: account.cookie },
  })
  return list.json<ProjectView[]>().find((project) => project.id === projectId)?.tracking
}

describe('the tracking setting of a project', () => {
  it('is MARKETING_ONLY for a new project and shown on the project record', async () => {
    expect(owner.project.tracking).toBe('MARKETING_ONLY')
    expect(await trackingOf(owner, owner.project.id)).toBe('MARKETING_ONLY')
  })

  it('says on the project record how long HTML must be to carry the open pixel; PATCH cannot change it', async () => {
    expect(owner.project).toMatchObject({ trackingPixelMinHtmlLength: 3_200 })
    const response = await patch(owner, owner.project.id, { trackingPixelMinHtmlLength: 0 })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ trackingPixelMinHtmlLength: 3_200, tracking: 'MARKETING_ONLY' })
  })

  it('is changed with PATCH, leaving the name alone', async () => {
    const response = await patch(owner, owner.project.id, { tracking: 'DISABLED' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ tracking: 'DISABLED', name: 'Owner' })
    expect(await trackingOf(owner, owner.project.id)).toBe('DISABLED')
    expect((await patch(owner, owner.project.id, { tracking: 'ENABLED', name: 'Renamed' })).json()).toMatchObject({
      tracking: 'ENABLED',
      name: 'Renamed',
    })
  })

  it('rejects an unknown mode with a field error and changes nothing', async () => {
    for (const tracking of ['on', true, null, 'enabled']) {
      const response = await patch(owner, owner.project.id, { tracking })
      expect(response.statusCode).toBe(422)
      expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'tracking' }] })
    }
    expect(await trackingOf(owner, owner.project.id)).toBe('ENABLED')
  })

  it("cannot be read or changed on another user's project", async () => {
    const response = await patch(stranger, owner.project.id, { tracking: 'DISABLED' })
    expect(response.statusCode).toBe(404)
    expect(await trackingOf(stranger, owner.project.id)).toBeUndefined()
    expect(await trackingOf(owner, owner.project.id)).toBe('ENABLED')
  })
})
