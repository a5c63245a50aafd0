import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { accessibilityAudit, ensureWebBuild, findChromium, launchBrowser } from './browser.js'
import {
  addDomain,
  addPlanContacts,
  callApi,
  chooseOption,
  createProject,
  readSecretKey,
  signUp,
  waitForCapture,
} from './flows.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const timeout = 240_000
const name = chromiumPath ? 'campaigns in chromium' : 'campaigns in chromium (skipped: no chromium binary found)'

type Campaign = { id: string; status: string; scheduledFor: string | null; totalRecipients: number }

suite(name, { timeout }, () => {
  let server: TestServer
  let browser: Browser
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    await ensureWebBuild()
    server = await startTestServer()
    browser = await launchBrowser(chromiumPath ?? '')
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    page = await context.newPage()
  })
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      await page.screenshot({ path: path.join(tmpdir(), `mailroom-web-${task.name.slice(0, 40)}.png`) }).catch(() => {})
    }
    await context.close()
  })

  /** A signed-in project with the plan contacts and a sending domain; the form of a new campaign filled in. */
  async function newCampaign(projectName: string, campaignName: string, subject: string): Promise<string> {
    await signUp(page, server.url, uniqueEmail())
    await createProject(page, projectName)
    const key = await readSecretKey(page)
    await addPlanContacts(server.url, key)
    await addDomain(page, 'news.example')
    await page.getByRole('link', { name: 'Campaigns' }).click()
    await page.getByRole('link', { name: 'New campaign' }).first().click()
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(campaignName)
    await page.getByRole('textbox', { name: 'Subject', exact: true }).fill(subject)
    await page.getByRole('textbox', { name: 'From address', exact: true }).fill('news@news.example')
    return key
  }

  async function campaignOf(key: string, id: string): Promise<Campaign> {
    return (await callApi<{ data: Campaign }>(server.url, key, 'GET', `/campaigns/${id}`)).data
  }

  const campaignId = () => new URL(page.url()).pathname.split('/').pop() ?? ''

  it('creates a campaign for a filtered audience with its live count, schedules it and cancels it', async () => {
    const key = await newCampaign('Scheduling', 'Pro launch', 'Pro is here')
    const audit = accessibilityAudit(page)

    await page.getByText('Filtered', { exact: true }).click()
    const filter = page.getByRole('group', { name: 'Group 1, filter 1' })
    await chooseOption(page, filter, 'Field type', 'Custom data')
    await filter.getByRole('combobox', { name: 'Data key' }).fill('plan')
    await page.keyboard.press('Escape')
    await filter.getByRole('textbox', { name: 'Value', exact: true }).fill('pro')
    const audience = {
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
      },
    }
    const counted = await callApi<{ total: number }>(server.url, key, 'POST', '/campaigns/audience/count', audience)
    expect(counted.total).toBe(2)
    await expect.poll(() => page.getByTestId('audience-count').textContent()).toBe('2 recipients now')
    await audit.check('new campaign, filtered audience')

    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.getByRole('heading', { name: 'Pro launch' }).waitFor()
    const id = campaignId()
    expect(await campaignOf(key, id)).toMatchObject({ status: 'DRAFT', totalRecipients: 2 })
    expect(await page.getByTestId('campaign-status').textContent()).toBe('DRAFT')

    // Schedule for the 15th of next month at 09:30, local time, with the date-time picker.
    await page.getByRole('button', { name: 'Send at' }).click()
    const picker = page.getByRole('dialog', { name: 'Send at' })
    await picker.getByRole('button', { name: 'Next month' }).click()
    const expected = new Date()
    expected.setMonth(expected.getMonth() + 1, 15)
    expected.setHours(9, 30, 0, 0)
    const day = expected.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric' })
    await picker.getByRole('button', { name: day, exact: true }).click()
    await picker.getByRole('spinbutton', { name: 'Hours' }).fill('09')
    await picker.getByRole('spinbutton', { name: 'Minutes' }).fill('30')
    await picker.getByRole('button', { name: 'Confirm date and time' }).click()
    await page.getByRole('button', { name: 'Schedule', exact: true }).click()
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('SCHEDULED')
    const scheduled = await campaignOf(key, id)
    expect(scheduled.status).toBe('SCHEDULED')
    const when = new Date(scheduled.scheduledFor ?? '')
    expect(when.toISOString()).toBe(expected.toISOString())
    await expect.poll(() => page.getByText(when.toLocaleString()).count()).toBeGreaterThan(0)
    await audit.check('scheduled campaign')

    await page.getByRole('button', { name: 'Cancel schedule' }).click()
    await page
      .getByRole('dialog', { name: 'Cancel this campaign?' })
      .getByRole('button', { name: 'Cancel campaign' })
      .click()
    // Nothing was sent, so the campaign goes back to draft (DESIGN.md §4).
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('DRAFT')
    expect((await campaignOf(key, id)).status).toBe('DRAFT')
    audit.expectClean()
  })

  it('sends a small campaign now: it reaches SENT with the API’s stats, and its emails are in the mailbox', async () => {
    const subject = 'Spring news for everyone'
    const key = await newCampaign('Sending', 'Spring news', subject)
    await expect.poll(() => page.getByTestId('audience-count').textContent()).toBe('4 recipients now')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.getByRole('heading', { name: 'Spring news' }).waitFor()
    const id = campaignId()

    await page.getByRole('button', { name: 'Send test' }).click()
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Test email sent' }).count()).toBe(1)

    await page.getByRole('button', { name: 'Send now' }).click()
    await page
      .getByRole('dialog', { name: 'Send “Spring news” now?' })
      .getByRole('button', { name: 'Send now' })
      .click()
    await expect.poll(() => page.getByTestId('campaign-status').textContent(), { timeout: 90_000 }).toBe('SENT')

    const stats = (await callApi<{ data: Record<string, number> }>(server.url, key, 'GET', `/campaigns/${id}/stats`))
      .data
    expect(stats.sentCount).toBe(4)
    for (const counter of ['totalRecipients', 'sentCount', 'deliveredCount', 'openedCount', 'bouncedCount']) {
      await expect
        .poll(() => page.getByTestId(`stat-${counter}`).locator('dd[data-count]').textContent())
        .toBe(String(stats[counter]))
    }
    await page.getByRole('figure', { name: 'Activity over time' }).waitFor()
    const audit = accessibilityAudit(page)
    await audit.check('sent campaign with stats')

    await waitForCapture(server.url, key, subject)
    const recipients = async () => {
      const mailbox = await callApi<{ data: { subject: string; to: string[] }[] }>(server.url, key, 'GET', '/mailbox')
      return mailbox.data
        .filter((message) => message.subject === subject)
        .flatMap((message) => message.to)
        .sort()
    }
    await expect
      .poll(recipients, { timeout: 60_000 })
      .toEqual(['free3@people.example', 'free4@people.example', 'pro0@people.example', 'pro1@people.example'])
    await page.getByRole('link', { name: 'Mailbox' }).click()
    await expect.poll(() => page.getByRole('link', { name: new RegExp(`^${subject}`) }).count()).toBe(4)
    audit.expectClean()
  })
})
