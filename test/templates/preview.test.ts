import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, callAs, createAccount, createContact } from '../helpers/factories.js'
import { itRequiresTheSecretKey } from '../helpers/scoping.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

let server: TestServer
let account: Account
beforeAll(async () => {
  server = await startTestServer()
  account = await createAccount(server)
})
afterAll(() => server?.close())

const preview = (payload: object) => callAs(server, account)('POST', '/templates/preview', payload)

describe('previewing a template draft', () => {
  it('renders subject and body with fallbacks, escapes nothing it should not, and gives the text alternative', async () => {
    const response = await preview({
      subject: 'Hi {{ name ?? "there" }}',
      body: '<h1>Hello {{ name ?? "friend" }}</h1><p>See <a href="https://shop.example/x">the shop</a>.</p><img src="https://cdn.example/a.png" alt="logo">',
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      subject: 'Hi there',
      html: '<h1>Hello friend</h1><p>See <a href="https://shop.example/x">the shop</a>.</p><img src="https://cdn.example/a.png" alt="logo">',
      text: 'HELLO FRIEND\n\nSee the shop [https://shop.example/x].',
    })
  })

  it('a syntax error in the body is the same 400 a save gives, with its line and column', async () => {
    const response = await preview({ subject: 'Fine', body: '<p>one</p>\n<p>two</p>\n{% if plan %}\n<p>pro</p>' })
    expect(response.statusCode).toBe(400)
    expect(response.json().error).toMatchObject({
      code: 'TEMPLATE_SYNTAX_ERROR',
      details: { field: 'body', line: 3, column: 1 },
    })
    expect(response.json().error.message).toMatch(/^Template body has a syntax error at line 3, column 1: /)
  })

  it('a syntax error in the subject names the subject', async () => {
    const response = await preview({ subject: 'Hi {{ name', body: '<p>x</p>' })
    expect(response.statusCode).toBe(400)
    expect(response.json().error.details).toMatchObject({ field: 'subject', line: 1 })
  })

  it('renders for one of the project’s contacts with its email and data; another project’s contact is a 404', async () => {
    const contact = await createContact(server, account, { email: 'ada@preview.example', data: { plan: 'pro' } })
    const response = await preview({
      subject: 'For {{ email }}',
      body: '<p>{{ data.plan }} · {{ plan }} · {{ missing ?? "none" }}</p>',
      contactId: contact.id,
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      subject: 'For ada@preview.example',
      html: '<p>pro · pro · none</p>',
      text: 'pro · pro · none',
    })
    const other = await createAccount(server, 'Other')
    const foreign = await createContact(server, other, { email: 'not-yours@preview.example' })
    const refused = await preview({ body: '<p>x</p>', contactId: foreign.id })
    expect(refused.statusCode).toBe(404)
  })

  it('an empty body is a field error', async () => {
    const response = await preview({ subject: 'x', body: '' })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.errors).toEqual([expect.objectContaining({ field: 'body' })])
  })

  itRequiresTheSecretKey(() => server, [['POST', '/templates/preview', { body: '<p>x</p>' }]])
})
