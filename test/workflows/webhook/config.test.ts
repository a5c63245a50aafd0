import { describe, expect, it } from 'vitest'
import { webhookStepConfig } from '../../../src/modules/workflows/webhook/index.js'

function issuesOf(input: unknown): { path: PropertyKey[]; message: string }[] {
  const result = webhookStepConfig.safeParse(input)
  if (result.success) throw new Error(`expected ${JSON.stringify(input)} to be rejected`)
  return result.error.issues.map(({ path, message }) => ({ path, message }))
}

describe('webhookStepConfig accepts', () => {
  it('a bare URL, with POST as the method', () => {
    expect(webhookStepConfig.parse({ url: 'https://hooks.example.com/in' })).toEqual({
      url: 'https://hooks.example.com/in',
      method: 'POST',
    })
  })

  it('placeholders after the scheme, header values and anywhere in the body', () => {
    const config = {
      url: 'HTTP://{{event.host}}/contacts/{{ id }}?email={{email}}',
      method: 'PUT',
      headers: { Authorization: 'Bearer {{token}}', 'X-Contact': '{{email}}' },
      body: { id: '{{id}}', list: [1, '{{event.order.id}}', null, { deep: true }] },
    }
    expect(webhookStepConfig.parse(config)).toEqual(config)
  })
})

describe('webhookStepConfig rejects', () => {
  it.each([
    ['ftp://files.example.com/in', 'url must start with http:// or https:// (the scheme cannot be a placeholder)'],
    ['{{scheme}}://hooks.example.com', 'url must start with http:// or https:// (the scheme cannot be a placeholder)'],
    ['http{{s}}://hooks.example.com', 'url must start with http:// or https:// (the scheme cannot be a placeholder)'],
    ['//hooks.example.com/in', 'url must start with http:// or https:// (the scheme cannot be a placeholder)'],
    ['https://', 'url is not a valid URL'],
    ['https://exa mple.com/', 'url is not a valid URL'],
  ])('the URL %s', (url, message) => {
    expect(issuesOf({ url })).toEqual([{ path: ['url'], message }])
  })

  it('a missing URL', () => {
    expect(issuesOf({ method: 'POST' })).toEqual([{ path: ['url'], message: 'url must be a string' }])
  })

  it.each(['{{method}}', 'post', 'HEAD', 3])('the method %j', (method) => {
    expect(issuesOf({ url: 'https://hooks.example.com', method })).toEqual([
      { path: ['method'], message: 'method must be one of GET, POST, PUT, PATCH, DELETE (not a placeholder)' },
    ])
  })

  it('a header value that is not a string', () => {
    expect(issuesOf({ url: 'https://hooks.example.com', headers: { 'X-Count': 3, 'X-Ok': 'fine' } })).toEqual([
      { path: ['headers', 'X-Count'], message: 'header values must be strings' },
    ])
  })

  it('headers that are not an object', () => {
    expect(issuesOf({ url: 'https://hooks.example.com', headers: ['X-A: 1'] })).toEqual([
      { path: ['headers'], message: 'headers must be an object of header names to string values' },
    ])
  })

  it.each([
    ['{{name}}', 'header names must be plain header tokens (no placeholders or spaces)'],
    ['X Contact', 'header names must be plain header tokens (no placeholders or spaces)'],
    ['Host', 'this header is set by Mailroom itself'],
    ['Content-Length', 'this header is set by Mailroom itself'],
    ['transfer-encoding', 'this header is set by Mailroom itself'],
  ])('the header name %s', (name, message) => {
    expect(issuesOf({ url: 'https://hooks.example.com', headers: { [name]: 'x' } })).toEqual([
      { path: ['headers', name], message },
    ])
  })

  it('a body that is not JSON', () => {
    expect(issuesOf({ url: 'https://hooks.example.com', body: { when: new Date(0) } })).toEqual([
      { path: ['body'], message: 'body must be JSON' },
    ])
  })
})
