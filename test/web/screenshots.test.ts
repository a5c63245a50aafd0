import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { findChromium } from './browser.js'
import {
  addDomain,
  appUrl,
  createProject,
  dismissToasts,
  readSecretKey,
  sendEmail,
  signUp,
  waitForCapture,
} from './flows.js'

/*
 * Not a check: `npm run screenshots` renders the main pages with sample data into docs/screenshots/ for the
 * README. Skipped in the normal run.
 */
const out = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
const chromiumPath = findChromium()
/** Campaigns are sent only with a visible unsubscribe link (the pre-send check). */
const unsubscribeLink = '<a href="{{ unsubscribeUrl }}">Unsubscribe</a>'

describe.runIf(process.env.SCREENSHOTS && chromiumPath)('dashboard screenshots', () => {
  // The web tier's shared server and chromium (test/web/global-setup.ts).
  const server = { url: '' }
  beforeAll(() => {
    server.url = inject('webServerUrl')
    mkdirSync(out, { recursive: true })
  })

  it('renders every page', { timeout: 240_000 }, async () => {
    const browser = await chromium.connect(inject('browserWsEndpoint'))
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    const shot = async (name: string) => {
      // Toasts from the step before would cover the header.
      await dismissToasts(page)
      await page.screenshot({ path: `${out}${name}.png` })
    }

    await page.goto(appUrl(server.url, '/login'))
    await page.getByRole('button', { name: 'Log in' }).waitFor()
    await shot('login')
    await signUp(page, server.url, 'ada@lovelace.example')
    await createProject(page, 'Analytical Engines')
    const key = await readSecretKey(page)
    await page.getByRole('button', { name: 'Hide secret key' }).click()
    await shot('keys')
    await addDomain(page, 'engines.example')
    await shot('domains')

    const people = [
      ['grace@navy.example', 'Grace', 'pro'],
      ['alan@bletchley.example', 'Alan', 'free'],
      ['katherine@nasa.example', 'Katherine', 'pro'],
    ] as const
    for (const [email, name, plan] of people) {
      const sent = await sendEmail(server.url, key, {
        from: 'hello@engines.example',
        to: email,
        subject: `Welcome aboard, ${name}`,
        body: `<div style="font-family:sans-serif;max-width:520px"><h1 style="color:#364fc7">Welcome, ${name}!</h1><p>Your <b>${plan}</b> plan is ready. Reply to this email if you need anything.</p><p><a href="https://engines.example/start" style="background:#364fc7;color:#fff;padding:10px 16px;border-radius:4px;text-decoration:none">Get started</a></p></div>`,
      })
      expect(sent.status).toBe(200)
      const tracked = await fetch(`${server.url}/v1/track`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email, event: 'signed-up', subscribed: true, data: { name, plan } }),
      })
      expect(tracked.status).toBe(200)
    }
    await page.getByRole('link', { name: 'Contacts' }).click()
    await page.getByRole('link', { name: 'grace@navy.example' }).waitFor()
    await shot('contacts')
    await page.getByRole('link', { name: 'grace@navy.example' }).click()
    await page.getByRole('heading', { name: 'Recent activity' }).waitFor()
    await page.getByText('signed-up').first().waitFor()
    await shot('contact')

    await page.getByRole('link', { name: 'Templates' }).click()
    await page.getByRole('link', { name: 'New template' }).first().click()
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Order shipped')
    await page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Your order {{data.order}} is on its way')
    await page.getByRole('textbox', { name: 'From address', exact: true }).fill('orders@engines.example')
    await page
      .getByRole('textbox', { name: 'HTML body', exact: true })
      .fill(
        '<div style="font-family:sans-serif">\n  <h1>Good news, {{name ?? "there"}}!</h1>\n  <p>Order <b>{{data.order}}</b> left our warehouse today.</p>\n  <p style="color:#555">Track it any time from your account.</p>\n</div>',
      )
    await page.getByRole('button', { name: 'Create template' }).click()
    await page.getByRole('heading', { name: 'Edit Order shipped' }).waitFor()
    await page.waitForTimeout(500)
    await shot('template-editor')
    await page.getByRole('link', { name: 'All templates' }).click()
    await page.getByRole('link', { name: 'Order shipped' }).waitFor()
    await shot('templates')

    for (const [name, subject] of [
      ['November newsletter', 'What is new in November'],
      ['Pro plan launch', 'Meet the Pro plan'],
    ]) {
      const created = await fetch(`${server.url}/campaigns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name,
          subject,
          from: 'news@engines.example',
          body: `<p>News</p>${unsubscribeLink}`,
          audienceType: 'ALL',
        }),
      })
      expect(created.status).toBe(201)
    }
    await page.getByRole('link', { name: 'Campaigns' }).click()
    await page.getByRole('table', { name: 'Campaigns' }).getByText('Pro plan launch').waitFor()
    await shot('campaigns')

    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      expect(response.ok, `${method} ${path}: ${await response.clone().text()}`).toBe(true)
      return (await response.json()) as T
    }
    const segment = await api<{ id: string }>('POST', '/segments', {
      name: 'Recently signed up',
      description: 'Signed up in the last 30 days, on any plan',
      trackMembership: true,
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'event.signed-up', operator: 'triggeredWithin', value: 30, unit: 'days' },
              { field: 'email', operator: 'notContains', value: 'bletchley' },
            ],
          },
        ],
      },
    })
    await page.getByRole('link', { name: 'Segments' }).click()
    await page.getByRole('link', { name: 'Recently signed up' }).click()
    await page.getByTestId('segment-member-total').waitFor()
    await shot('segment')
    await page.getByRole('link', { name: 'Edit' }).click()
    await page.getByTestId('segment-preview-count').filter({ hasText: '2' }).waitFor()
    await shot('segment-editor')

    const launch = await api<{ data: { id: string } }>('POST', '/campaigns', {
      name: 'Welcome series',
      subject: 'Getting the most from your engine',
      from: 'news@engines.example',
      body: '<p>Tips</p>',
      audienceType: 'SEGMENT',
      segmentId: segment.id,
    })
    await api('POST', `/campaigns/${launch.data.id}/send`, {})
    await page.goto(appUrl(server.url, `/campaigns/${launch.data.id}`))
    await page.getByTestId('campaign-status').filter({ hasText: 'SENT' }).waitFor({ timeout: 60_000 })
    await page.getByRole('figure', { name: 'Activity over time' }).waitFor()
    await shot('campaign')
    const withKey = (path: string, body: unknown) => api<{ id: string }>('POST', path, body)
    const templates = (await (
      await fetch(`${server.url}/templates?search=Order`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { data: { id: string }[] }
    const flow = await withKey('/workflows', { name: 'Welcome series', eventName: 'signed-up' })
    await withKey(`/workflows/${flow.id}/steps`, {
      type: 'SEND_EMAIL',
      name: 'Welcome email',
      position: { x: 0, y: 0 },
      config: {},
      templateId: templates.data[0]?.id,
    })
    await withKey(`/workflows/${flow.id}/steps`, {
      type: 'WAIT_FOR_EVENT',
      name: 'Wait for first order',
      position: { x: 0, y: 0 },
      config: { eventName: 'order.placed', timeout: 259_200 },
    })
    await page.getByRole('link', { name: 'Workflows' }).click()
    await page.getByRole('link', { name: 'Welcome series', exact: true }).click()
    await page.getByRole('group', { name: 'Wait for event step Wait for first order' }).click()
    await page.getByRole('heading', { name: 'Wait for first order', level: 2 }).waitFor()
    await shot('workflow-editor')
    await page.getByRole('switch', { name: 'Enabled' }).click()
    await expect.poll(() => page.getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(true)
    await withKey('/v1/track', { email: 'grace@navy.example', event: 'signed-up', subscribed: true })
    await page.getByRole('link', { name: 'Executions' }).click()
    await page.getByRole('table', { name: 'Executions' }).getByRole('link', { name: 'grace@navy.example' }).waitFor()
    await shot('workflow-executions')
    await page.getByRole('link', { name: 'grace@navy.example' }).click()
    await page.getByRole('table', { name: 'Step history' }).waitFor()
    await shot('workflow-execution')
    await page.getByRole('link', { name: 'Workflows' }).click()
    await page.getByRole('table', { name: 'Workflows' }).waitFor()
    await shot('workflows')

    await waitForCapture(server.url, key, 'Welcome aboard, Grace')
    await page.getByRole('link', { name: 'Mailbox' }).click()
    await page.getByRole('link', { name: /Welcome aboard, Grace/ }).click()
    await page.getByRole('heading', { name: 'Welcome aboard, Grace' }).waitFor()
    await page.frameLocator('iframe[title^="Message:"]').getByRole('heading', { name: 'Welcome, Grace!' }).waitFor()
    await shot('mailbox')

    await page.goto(appUrl(server.url, '/contacts/import'))
    await page.locator('input[type="file"]').setInputFiles({
      name: 'customers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'email,name,plan\nada@lovelace.example,Ada,pro\nnot-an-address,Nobody,free\ncharles@babbage.example,Charles,free\n',
      ),
    })
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByRole('table', { name: 'Rows not imported' }).waitFor()
    await shot('contacts-import')
    await page.goto(appUrl(server.url, '/contacts/fields'))
    await page.getByRole('table', { name: 'Contact fields' }).waitFor()
    await shot('contact-fields')

    await page.getByRole('link', { name: 'Activity' }).click()
    await page.getByRole('table', { name: 'Activity' }).waitFor()
    await shot('activity')
    await page.getByRole('link', { name: 'Analytics' }).click()
    await page.getByRole('list', { name: 'Email totals' }).waitFor()
    await page.getByRole('table', { name: 'Top events' }).waitFor()
    await shot('analytics')

    const suppressed = await fetch(`${server.url}/suppressions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'old-address@engines.example', reason: 'bounce' }),
    })
    expect(suppressed.status).toBe(201)
    await page.getByRole('link', { name: 'Suppressions' }).click()
    await page.getByRole('table', { name: 'Suppressed addresses' }).waitFor()
    await shot('suppressions')

    // The setup checklist: a domain, a send and events exist by now, so it shows steps ticked and one open.
    await page.getByRole('link', { name: 'Get started' }).click()
    await page.getByTestId('setup-progress').waitFor()
    await shot('setup')
    for (const [section, ready] of [
      ['project', 'Save settings'],
      ['team', 'Invite'],
      ['billing', 'Save caps'],
      ['security', 'Bounce and complaint rates'],
    ] as const) {
      await page.goto(appUrl(server.url, `/settings/${section}`))
      await page.getByRole(section === 'security' ? 'table' : 'button', { name: ready }).waitFor()
      await shot(`settings-${section}`)
    }
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await page.getByRole('button', { name: 'Send reset link' }).waitFor()
    await shot('forgot-password')
    await browser.close()
  })
})
