import { describe, expect, it } from 'vitest'
import {
  renderEmail,
  renderHtml,
  renderSubject,
  renderText,
  validateTemplate,
} from '../../../src/mail/outbound/render.js'

const contact = {
  id: 'c-1',
  email: 'ada@example.com',
  data: { firstName: 'Ada', plan: 'pro' },
  unsubscribeUrl: 'https://mail.example.com/unsubscribe/c-1?a=1&b=2',
  subscribeUrl: 'https://mail.example.com/subscribe/c-1',
  manageUrl: 'https://mail.example.com/manage/c-1',
}

describe('render: variables', () => {
  it('resolves {{var}}, {{data.var}}, id, email and the subscription URLs', async () => {
    const text = await renderText(
      '{{firstName}}/{{data.plan}}/{{id}}/{{email}}/{{unsubscribeUrl}}/{{subscribeUrl}}/{{manageUrl}}',
      contact,
    )
    expect(text).toBe(
      'Ada/pro/c-1/ada@example.com/https://mail.example.com/unsubscribe/c-1?a=1&b=2/https://mail.example.com/subscribe/c-1/https://mail.example.com/manage/c-1',
    )
  })

  it('uses the fallback of {{var ?? "fallback"}} only when the variable is missing', async () => {
    const source = `Hi {{ firstName ?? "friend" }}, {{ nickname ?? 'pal' }}, {{ data.city ?? "somewhere" | upcase }}`
    expect(await renderText(source, contact)).toBe('Hi Ada, pal, SOMEWHERE')
    expect(await renderText('{{ note ?? "a ?? b" }}', contact)).toBe('a ?? b')
  })

  it('keeps reserved names (id, email, URLs) even when contact data has the same keys', async () => {
    const text = await renderText('{{id}} {{email}}', { ...contact, data: { id: 'spoof', email: 'spoof@x' } })
    expect(text).toBe('c-1 ada@example.com')
  })
})

describe('render: escaping', () => {
  it('HTML-escapes variables in HTML bodies, unless the template says | raw', async () => {
    const html = await renderHtml(
      '<p>{{ name }}</p><div>{{ snippet | raw }}</div><a href="{{ unsubscribeUrl }}">x</a>',
      {
        ...contact,
        data: { name: '<script>alert(1)</script>', snippet: '<b>bold</b>' },
      },
    )
    expect(html).toBe(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p><div><b>bold</b></div><a href="https://mail.example.com/unsubscribe/c-1?a=1&amp;b=2">x</a>',
    )
  })

  it('folds line breaks out of a rendered subject so a variable cannot add a header', async () => {
    const subject = await renderSubject('Hello {{ name }}', { data: { name: 'Ada\r\nBcc: victim@example.com' } })
    expect(subject).toBe('Hello Ada Bcc: victim@example.com')
    expect(subject).not.toMatch(/[\r\n]/)
  })

  it('renders an email with an unescaped subject and an escaped body', async () => {
    const email = await renderEmail(
      { subject: 'Offer for {{ firstName }} & co', body: '<h1>Hi {{ firstName }}</h1><p>Plan: {{ plan }}</p>' },
      contact,
    )
    expect(email).toEqual({
      subject: 'Offer for Ada & co',
      html: '<h1>Hi Ada</h1><p>Plan: pro</p>',
    })
  })
})

describe('render: syntax checks', () => {
  it('accepts valid templates, including the ?? shorthand', () => {
    expect(validateTemplate('<p>{{ name ?? "x" }}</p>{% if plan == "pro" %}VIP{% endif %}')).toBeUndefined()
  })

  it('reports the line and column (as written) of a syntax error', () => {
    expect(validateTemplate('<p>\n  {% if plan %}\n</p>')).toEqual({
      message: 'tag {% if plan %} not closed',
      line: 2,
      column: 3,
    })
    expect(validateTemplate('{{ a ?? "b" }} {{ name ')).toMatchObject({ line: 1, column: 16 })
    expect(validateTemplate('{{ a ?? "b" }} {{ name | nosuchfilter }}')).toEqual({
      message: 'undefined filter: nosuchfilter',
      line: 1,
      column: 16,
    })
  })

  it('refuses tags that would read files from the server', () => {
    for (const tag of ['{% include "/etc/passwd" %}', '{% render "x" %}', '{% layout "x" %}']) {
      expect(validateTemplate(tag)?.message).toMatch(/not available in templates/)
    }
  })
})

describe('render: limits', () => {
  it('stops a template that allocates without bound, with a render error', async () => {
    await expect(renderHtml('{% for i in (1..100000000) %}{{ i }}{% endfor %}', {})).rejects.toMatchObject({
      code: 'TEMPLATE_RENDER_ERROR',
    })
  })

  it('reuses the parse of a template it has seen (same output, no re-parse error)', async () => {
    const source = '{{ firstName }} {{ plan }}'
    expect(await renderHtml(source, contact)).toBe('Ada pro')
    expect(await renderHtml(source, { data: { firstName: 'Bob', plan: 'free' } })).toBe('Bob free')
  })
})
