import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { addDomain, browserSession, fetchApi, postWithKey, sendEmail, startProject, waitForCapture } from './flows.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const timeout = 240_000

type Feed = { total: number; data: { type: string; name: string }[] }

/** Waits until the API answers `url` with something `done` accepts (rollups and the feed fill in after a send). */
async function waitForApi<T>(base: string, key: string, url: string, done: (body: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const { body } = await fetchApi<T>(base, key, 'GET', url)
    if (done(body)) return body
    if (Date.now() > deadline) throw new Error(`GET ${url} never settled: ${JSON.stringify(body)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

async function track(base: string, key: string, email: string, event: string, data: object = {}) {
  const tracked = await fetchApi(base, key, 'POST', '/v1/track', { email, event, data })
  expect(tracked.status).toBe(200)
}

const listTexts = async (page: Page, name: string) =>
  (await page.getByRole('list', { name }).getByRole('listitem').allInnerTexts()).map((text) =>
    text.replace(/\s+/g, ' ').toLowerCase(),
  )

suite(chromiumPath ? 'activity in chromium' : 'activity in chromium (skipped: no chromium)', { timeout }, () => {
  const session = browserSession()

  it('filters the activity feed by type, showing what the API lists', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Feed')
    await addDomain(page, 'feed.example')
    const audit = accessibilityAudit(page)
    const sent = await sendEmail(server.url, key, {
      from: 'news@feed.example',
      to: 'ada@feed.example',
      subject: 'Feed news',
      body: '<p>hi</p>',
    })
    expect(sent.status).toBe(200)
    await track(server.url, key, 'bob@feed.example', 'signed-up', { plan: 'pro' })
    await waitForApi<{ data: string[] }>(server.url, key, '/activity/types', (body) =>
      ['email.sent', 'event.triggered'].every((type) => body.data.includes(type)),
    )
    const all = await fetchApi<Feed>(server.url, key, 'GET', '/activity?limit=25')

    await page.getByRole('link', { name: 'Activity' }).click()
    const table = page.getByRole('table', { name: 'Activity' })
    await page.getByText(`${all.body.total} entries`).waitFor()
    await audit.check('activity')

    // Types by their human names: "Tracked event" is the API's event.triggered.
    await page.getByRole('combobox', { name: 'Types' }).click()
    await page.getByRole('option', { name: 'Tracked event' }).click()
    await page.keyboard.press('Escape')
    const triggered = await fetchApi<Feed>(server.url, key, 'GET', '/activity?types=event.triggered')
    expect(triggered.body.total).toBe(1)
    await page.getByText('1 entry', { exact: true }).waitFor()
    const rows = await table.locator('tbody tr').allInnerTexts()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toContain('Tracked event')
    expect(rows[0]).toContain('bob@feed.example')
    expect(rows[0]).toContain('Tracked signed-up with plan: pro')
    await audit.check('activity filtered')
    audit.expectClean()
  })

  it('names each entry in words, with a sentence linking to the campaign, the contact or the execution', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Sentences')
    await addDomain(page, 'sentences.example')
    const audit = accessibilityAudit(page)
    await postWithKey(server.url, key, '/contacts', { email: 'ada@sentences.example', subscribed: true }, 201)
    const sent = await sendEmail(server.url, key, {
      from: 'news@sentences.example',
      to: 'ada@sentences.example',
      subject: 'Your receipt',
      body: '<p>Thanks</p>',
    })
    expect(sent.status).toBe(200)
    const campaign = await postWithKey(
      server.url,
      key,
      '/campaigns',
      {
        name: 'Spring news',
        subject: 'Spring is here',
        body: '<p>News</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
        from: 'news@sentences.example',
        audienceType: 'ALL',
      },
      201,
    )
    const campaignId = (campaign.data as { id: string }).id
    await postWithKey(server.url, key, `/campaigns/${campaignId}/send`, {})
    const workflow = await postWithKey(server.url, key, '/workflows', { name: 'Welcome', eventName: 'joined' }, 201)
    expect((await fetchApi(server.url, key, 'PATCH', `/workflows/${workflow.id}`, { enabled: true })).status).toBe(200)
    await track(server.url, key, 'ada@sentences.example', 'joined', { plan: 'pro' })
    await waitForApi<Feed>(
      server.url,
      key,
      '/activity?limit=50',
      (body) =>
        ['workflow.completed', 'event.triggered'].every((type) => body.data.some((entry) => entry.type === type)) &&
        body.data.filter((entry) => entry.type === 'email.sent').length === 2,
    )

    await page.getByRole('link', { name: 'Activity' }).click()
    const table = page.getByRole('table', { name: 'Activity' })
    const row = (label: string, text: string) =>
      table.getByRole('row').filter({ hasText: label }).filter({ hasText: text })
    await row('Workflow started', 'Started the workflow Welcome').waitFor()
    expect(await row('Tracked event', 'Tracked joined with plan: pro').count()).toBe(1)
    expect(await row('Workflow finished', 'Finished the workflow Welcome').count()).toBe(1)
    // No raw type or payload anywhere in the table.
    const text = await table.innerText()
    expect(text).not.toMatch(/email\.sent|event\.triggered|workflow\.started|[{}]/)

    // Each email links to its own timeline, a transactional one and a campaign's alike.
    const receipt = row('Email sent', 'Sent “Your receipt”').getByRole('link', { name: '“Your receipt”' })
    expect(await receipt.getAttribute('href')).toMatch(/\/app\/emails\/[0-9a-f-]{36}$/)
    const news = row('Email sent', 'Sent “Spring is here”').getByRole('link', { name: '“Spring is here”' })
    expect(await news.getAttribute('href')).toMatch(/\/app\/emails\/[0-9a-f-]{36}$/)
    await audit.check('activity in words')

    // The workflow's run opens on its execution.
    await row('Workflow started', 'Started the workflow Welcome').getByRole('link', { name: 'Welcome' }).click()
    await page.getByRole('heading', { name: 'Execution for ada@sentences.example' }).waitFor()
    expect(page.url()).toMatch(new RegExp(`/app/workflows/${workflow.id}/executions/[0-9a-f-]{36}$`))
    audit.expectClean()
  })

  it('lifts a suppression after a confirmation; adds and searches addresses', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Suppressions')
    const audit = accessibilityAudit(page)
    expect((await fetchApi(server.url, key, 'POST', '/suppressions', { email: 'gone@lift.example' })).status).toBe(201)
    const listed = async () =>
      (await fetchApi<{ data: { email: string }[] }>(server.url, key, 'GET', '/suppressions')).body.data.map(
        (row) => row.email,
      )

    await page.getByRole('link', { name: 'Suppressions' }).click()
    const table = page.getByRole('table', { name: 'Suppressed addresses' })
    await table.getByText('gone@lift.example').waitFor()
    await page.getByRole('textbox', { name: 'Address to suppress' }).fill('Angry@Lift.example')
    await page.getByRole('combobox', { name: 'Reason' }).first().click()
    await page.getByRole('option', { name: 'Complaint' }).click()
    await page.getByRole('button', { name: 'Suppress' }).click()
    await table.getByText('angry@lift.example').waitFor()
    expect(await listed()).toEqual(['angry@lift.example', 'gone@lift.example'])
    await page.getByText('2 addresses').waitFor()
    await audit.check('suppressions')

    await page.getByRole('searchbox', { name: 'Search' }).fill('gone')
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1)

    await page.getByRole('button', { name: 'Lift gone@lift.example' }).click()
    const dialog = page.getByRole('dialog', { name: 'Lift the suppression of gone@lift.example?' })
    expect(await dialog.innerText()).toContain('Mail will be sent to this address again')
    await audit.check('lift dialog')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect(await listed()).toContain('gone@lift.example')

    await page.getByRole('button', { name: 'Lift gone@lift.example' }).click()
    await dialog.getByRole('button', { name: 'Lift suppression' }).click()
    await page.getByText('No addresses match').waitFor()
    expect(await listed()).toEqual(['angry@lift.example'])
    audit.expectClean()
  })

  it('shows analytics whose numbers equal the API’s', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Analytics')
    await addDomain(page, 'stats.example')
    const audit = accessibilityAudit(page)
    for (const to of ['a@stats.example', 'b@stats.example']) {
      const sent = await sendEmail(server.url, key, {
        from: 'hi@stats.example',
        to,
        subject: 'Stats',
        body: '<p>x</p>',
      })
      expect(sent.status).toBe(200)
    }
    await waitForCapture(server.url, key, 'Stats')
    for (const event of ['signed-up', 'signed-up', 'paid']) await track(server.url, key, 'c@stats.example', event)
    const from = new Date(Date.now() - 30 * 24 * 3600_000).toISOString()
    type Metrics = Record<'sent' | 'captured' | 'delivered' | 'opened' | 'clicked' | 'bounced', number>
    const series = await waitForApi<{ totals: Metrics }>(
      server.url,
      key,
      `/analytics/timeseries?from=${encodeURIComponent(from)}&granularity=day`,
      (body) => body.totals.sent === 2,
    )
    const top = await waitForApi<{ events: { name: string; count: number; previousCount: number }[] }>(
      server.url,
      key,
      `/analytics/top-events?from=${encodeURIComponent(from)}&limit=10`,
      (body) => body.events.reduce((sum, event) => sum + event.count, 0) === 3,
    )
    const stats = await fetchApi<{
      total: number
      last24Hours: number
      last7Days: number
      last30Days: number
      uniqueContacts: number
    }>(server.url, key, 'GET', '/events/stats')

    await page.getByRole('link', { name: 'Analytics' }).click()
    await page.getByRole('list', { name: 'Email totals' }).waitFor()
    // The capture transport kept both emails: captured, never delivered, so no delivered figure of 0 beside them.
    expect(series.totals).toMatchObject({ captured: 2, delivered: 0 })
    expect(await listTexts(page, 'Email totals')).toEqual([
      `sent ${series.totals.sent}`,
      `captured ${series.totals.captured}`,
      `opened ${series.totals.opened}`,
      `clicked ${series.totals.clicked}`,
      `bounced ${series.totals.bounced}`,
    ])
    const eventRows = await page.getByRole('table', { name: 'Top events' }).locator('tbody tr').allInnerTexts()
    expect(eventRows.map((row) => row.split(/\s+/))).toEqual(
      top.events.map((event) => [event.name, String(event.count), String(event.previousCount)]),
    )
    expect(top.events.map((event) => [event.name, event.count])).toEqual([
      ['signed-up', 2],
      ['paid', 1],
    ])
    await page.getByRole('list', { name: 'Tracked events' }).waitFor()
    expect(await listTexts(page, 'Tracked events')).toEqual([
      `all events ${stats.body.total}`,
      `last 24 hours ${stats.body.last24Hours}`,
      `last 7 days ${stats.body.last7Days}`,
      `last 30 days ${stats.body.last30Days}`,
      `contacts tracked ${stats.body.uniqueContacts}`,
    ])
    // The chart draws a line per metric; its numbers are in the table behind "Show as a table".
    expect(await page.locator('.recharts-line').count()).toBe(5)
    await audit.check('analytics')
    audit.expectClean()
  })
})
