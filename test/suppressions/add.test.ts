import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callAs, createAccount } from '../helpers/factories.js'
import { itRequiresTheSecretKey } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.close())

describe('adding an address to the suppression list', () => {
  it('adds it lower-cased with its reason, and only the project that added it lists it', async () => {
    const account = await createAccount(server)
    const other = await createAccount(server, 'Other')
    const added = await callAs(server, account)('POST', '/suppressions', {
      email: 'Gone@Example.com',
      reason: 'complaint',
    })
    expect(added.statusCode).toBe(201)
    expect(added.json()).toEqual({
      email: 'gone@example.com',
      reason: 'complaint',
      emailId: null,
      createdAt: expect.any(String),
    })
    const listed = await callAs(server, account)('GET', '/suppressions')
    expect(listed.json().data.map((row: { email: string }) => row.email)).toEqual(['gone@example.com'])
    expect((await callAs(server, other)('GET', '/suppressions')).json().data).toEqual([])
  })

  it('a bounce is the default reason; adding the same address again is a 409 and keeps the first reason', async () => {
    const account = await createAccount(server)
    const call = callAs(server, account)
    expect((await call('POST', '/suppressions', { email: 'dead@example.com' })).json().reason).toBe('bounce')
    const again = await call('POST', '/suppressions', { email: 'DEAD@example.com', reason: 'complaint' })
    expect(again.statusCode).toBe(409)
    expect(again.json().error).toMatchObject({
      code: 'CONFLICT',
      message: 'DEAD@example.com is already on the suppression list',
    })
    expect((await call('GET', '/suppressions')).json().data[0].reason).toBe('bounce')
  })

  it('refuses an address that is not one, naming the field', async () => {
    const account = await createAccount(server)
    const response = await callAs(server, account)('POST', '/suppressions', { email: 'not an address' })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors).toEqual([expect.objectContaining({ field: 'email' })])
  })

  itRequiresTheSecretKey(() => server, [['POST', '/suppressions', { email: 'a@example.com' }]])
})
