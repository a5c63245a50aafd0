import { describe, expect, it } from 'vitest'
import {
  renderWebhookRequest,
  WebhookError,
  type WebhookStepConfigInput,
  type WebhookVariables,
  webhookStepConfig,
} from '../../../src/modules/workflows/webhook/index.js'

const variables: WebhookVariables = {
  contact: {
    id: 'c-1',
    email: 'ada@example.com',
    subscribed: true,
    data: { plan: 'pro', seats: 3, name: 'Ada', tags: ['a', 'b'], path: 'a/b?c=d#e' },
  },
  event: { order: { id: 'o-42', total: 99.5, paid: true, lines: [{ sku: 'X1' }] }, host: 'hooks.example.com' },
  context: { source: 'manual', plan: 'from-context', email: 'not-the-contact@example.com' },
  subscriptionUrls: {
    unsubscribeUrl: 'https://mail.example.com/unsubscribe/t1',
    subscribeUrl: 'https://mail.example.com/subscribe/t2',
    manageUrl: 'https://mail.example.com/manage/t3',
  },
}

const defaultPayload = { default: true }

function render(config: WebhookStepConfigInput, vars: WebhookVariables = variables) {
  return renderWebhookRequest(webhookStepConfig.parse(config), vars, defaultPayload)
}

function renderError(config: WebhookStepConfigInput, vars: WebhookVariables = variables): WebhookError {
  try {
    render(config, vars)
  } catch (err) {
    if (err instanceof WebhookError) return err
    throw err
  }
  throw new Error('expected a WebhookError')
}

describe('placeholders', () => {
  it('read the contact, its data, the event, the context and the subscription URLs', () => {
    const { body } = render({
      url: 'https://hooks.example.com',
      body: {
        text: '{{id}} {{ email }} {{data.plan}} {{event.order.id}} {{source}} {{seats}}',
        urls: ['{{unsubscribeUrl}}', '{{subscribeUrl}}', '{{manageUrl}}'],
        sku: '{{event.order.lines.0.sku}}',
      },
    })
    expect(JSON.parse(body ?? '')).toEqual({
      text: 'c-1 ada@example.com pro o-42 manual 3',
      urls: [
        'https://mail.example.com/unsubscribe/t1',
        'https://mail.example.com/subscribe/t2',
        'https://mail.example.com/manage/t3',
      ],
      sku: 'X1',
    })
  })

  it('prefer id/email, then the data./event. namespaces, then the context, then contact data', () => {
    const { body } = render({
      url: 'https://hooks.example.com',
      body: { email: '{{email}}', plan: '{{plan}}', dataPlan: '{{data.plan}}', name: '{{name}}' },
    })
    expect(JSON.parse(body ?? '')).toEqual({
      email: 'ada@example.com',
      plan: 'from-context',
      dataPlan: 'pro',
      name: 'Ada',
    })
  })

  it('keep the JSON type of a string that is exactly one placeholder, and make text of anything else', () => {
    const { body } = render({
      url: 'https://hooks.example.com',
      body: {
        total: '{{ event.order.total }}',
        paid: '{{event.order.paid}}',
        order: '{{event.order}}',
        tags: '{{tags}}',
        label: 'total: {{event.order.total}}',
        inline: 'tags={{tags}}',
        nested: [{ deep: ['{{seats}}'] }],
        untouched: [1, false, null],
      },
    })
    expect(JSON.parse(body ?? '')).toEqual({
      total: 99.5,
      paid: true,
      order: { id: 'o-42', total: 99.5, paid: true, lines: [{ sku: 'X1' }] },
      tags: ['a', 'b'],
      label: 'total: 99.5',
      inline: 'tags=["a","b"]',
      nested: [{ deep: [3] }],
      untouched: [1, false, null],
    })
  })

  it('render a missing value, an inherited property or an empty name as an empty string', () => {
    const { body } = render({
      url: 'https://hooks.example.com',
      body: {
        a: '{{nothing}}',
        b: 'x{{event.order.nothing.deeper}}y',
        c: '{{constructor}}',
        d: '{{ }}',
        e: '{{data.}}',
      },
    })
    expect(JSON.parse(body ?? '')).toEqual({ a: '', b: 'xy', c: '', d: '', e: '' })
  })
})

describe('renderWebhookRequest', () => {
  it('sends the default payload as JSON when the step has no body', () => {
    expect(render({ url: 'https://hooks.example.com/in' })).toEqual({
      url: 'https://hooks.example.com/in',
      method: 'POST',
      headers: { 'user-agent': 'Mailroom-Webhook/1', 'content-type': 'application/json' },
      body: '{"default":true}',
    })
  })

  it('sends no body and no content type on GET', () => {
    expect(render({ url: 'https://hooks.example.com/in', method: 'GET', body: { ignored: true } })).toEqual({
      url: 'https://hooks.example.com/in',
      method: 'GET',
      headers: { 'user-agent': 'Mailroom-Webhook/1' },
    })
  })

  it('lets the step set its own content type and user agent', () => {
    const { headers } = render({
      url: 'https://hooks.example.com',
      headers: { 'Content-Type': 'application/vnd.api+json', 'User-Agent': 'acme/{{source}}' },
    })
    expect(headers).toEqual({ 'content-type': 'application/vnd.api+json', 'user-agent': 'acme/manual' })
  })

  it('percent-encodes values in the URL so they stay inside their slot', () => {
    expect(render({ url: 'https://hooks.example.com/c/{{path}}?email={{email}}&t={{event.order.total}}' }).url).toBe(
      'https://hooks.example.com/c/a%2Fb%3Fc%3Dd%23e?email=ada%40example.com&t=99.5',
    )
  })

  it('lets a placeholder right after the scheme name the host', () => {
    expect(render({ url: 'http://{{event.host}}/in/{{id}}' }).url).toBe('http://hooks.example.com/in/c-1')
  })

  it.each([
    ['a host value that would add a path', { host: 'evil.example/x' }, 'http://{{event.host}}/in', 'not valid'],
    ['a host value with a user part', { host: 'user@evil.example' }, 'http://{{event.host}}/in', 'not valid'],
    ['an empty host', { host: '' }, 'https://{{event.host}}/in', 'no host'],
  ])('refuses %s', (_name, event, url, words) => {
    const err = renderError({ url }, { ...variables, event })
    expect(err.reason).toBe('bad_url')
    expect(err.message).toContain(words)
  })

  it('refuses credentials in the URL', () => {
    const err = renderError({ url: 'https://user:{{token}}@hooks.example.com/' })
    expect(err).toMatchObject({
      reason: 'bad_url',
      message: 'webhook URL must not carry credentials; send them in an Authorization header',
    })
  })

  it.each(['x\r\nX-Injected: 1', 'x\nY', 'x\rY', 'x\0'])('refuses a header value that renders to %j', (value) => {
    const err = renderError(
      { url: 'https://hooks.example.com', headers: { 'X-Name': '{{event.value}}' } },
      {
        ...variables,
        event: { value },
      },
    )
    expect(err).toMatchObject({
      reason: 'header_injection',
      message: 'webhook header X-Name contains a line break or NUL after filling in placeholders; nothing was sent',
    })
  })

  it('refuses a header value HTTP cannot carry, and keeps Latin-1 and tabs', () => {
    const emoji = renderError(
      { url: 'https://hooks.example.com', headers: { 'X-Name': '{{event.value}}' } },
      {
        ...variables,
        event: { value: 'party 🎉' },
      },
    )
    expect(emoji.reason).toBe('invalid_header')
    const { headers } = render({ url: 'https://hooks.example.com', headers: { 'X-Name': 'Zoë\t{{name}}' } })
    expect(headers['x-name']).toBe('Zoë\tAda')
  })
})
