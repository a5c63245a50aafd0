import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import {
  addDomain,
  addPlanContacts,
  browserSession,
  callApi,
  chooseOption,
  startProject,
  waitForCapture,
} from './flows.js'

type Campaign = { id: string; status: string; subject: string; scheduledFor: string | null; totalRecipients: number }

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath ? 'campaigns in chromium' : 'campaigns in chromium (skipped: no chromium binary found)'

suite(name, { timeout: 240_000 }, () => {
  const test = browserSession()

  /** A signed-in project with the plan contacts and a sending domain; the form of a new campaign filled in. */
  async function newCampaign(projectName: string, campaignName: string, subject: string): Promise<string> {
    const key = await startProject(test.page, test.server.url, uniqueEmail(), projectName)
    await addPlanContacts(test.server.url, key)
    await addDomain(test.page, 'news.example')
    await test.page.getByRole('link', { name: 'Campaigns' }).click()
    await test.page.getByRole('link', { name: 'New campaign' }).first().click()
    await test.page.getByRole('textbox', { name: 'Name', exact: true }).fill(campaignName)
    await test.page.getByRole('textbox', { name: 'Subject', exact: true }).fill(subject)
    await test.page.getByRole('textbox', { name: 'From address', exact: true }).fill('news@news.example')
    return key
  }

  async function campaignOf(key: string, id: string): Promise<Campaign> {
    return (await callApi<{ data: Campaign }>(test.server.url, key, 'GET', `/campaigns/${id}`)).data
  }

  const campaignId = () => new URL(test.page.url()).pathname.split('/').pop() ?? ''

  it('creates a campaign for a filtered audience with its live count, schedules it and cancels it', async () => {
    const key = await newCampaign('Scheduling', 'Pro launch', 'Pro is here')
    const audit = accessibilityAudit(test.page)

    await test.page.getByText('Filtered', { exact: true }).click()
    const filter = test.page.getByRole('group', { name: 'Group 1, filter 1' })
    await chooseOption(test.page, filter, 'Field type', 'Custom data')
    await filter.getByRole('combobox', { name: 'Data key' }).fill('plan')
    await test.page.keyboard.press('Escape')
    await filter.getByRole('textbox', { name: 'Value', exact: true }).fill('pro')
    const audience = {
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
      },
    }
    const counted = await callApi<{ total: number }>(
      test.server.url,
      key,
      'POST',
      '/campaigns/audience/count',
      audience,
    )
    expect(counted.total).toBe(2)
    await expect.poll(() => test.page.getByTestId('audience-count').textContent()).toBe('2 recipients now')
    await audit.check('new campaign, filtered audience')

    await test.page.getByRole('button', { name: 'Save draft' }).click()
    await test.page.getByRole('heading', { name: 'Pro launch' }).waitFor()
    const id = campaignId()
    expect(await campaignOf(key, id)).toMatchObject({ status: 'DRAFT', totalRecipients: 2 })
    expect(await test.page.getByTestId('campaign-status').textContent()).toBe('DRAFT')

    // Editing loads the saved audience into the builder and saves a changed subject.
    await test.page.getByRole('link', { name: 'Edit' }).click()
    const loaded = test.page.getByRole('group', { name: 'Group 1, filter 1' })
    await expect.poll(() => loaded.getByRole('combobox', { name: 'Data key' }).inputValue()).toBe('plan')
    await test.page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Pro is finally here')
    await test.page.getByRole('button', { name: 'Save changes' }).click()
    await test.page.getByRole('heading', { name: 'Pro launch' }).waitFor()
    await expect.poll(async () => (await campaignOf(key, id)).subject).toBe('Pro is finally here')

    // Schedule for the 15th of next month at 09:30, local time, with the date-time picker.
    await test.page.getByRole('button', { name: 'Send at' }).click()
    const picker = test.page.getByRole('dialog', { name: 'Send at' })
    await picker.getByRole('button', { name: 'Next month' }).click()
    const expected = new Date()
    expected.setMonth(expected.getMonth() + 1, 15)
    expected.setHours(9, 30, 0, 0)
    const day = expected.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric' })
    await picker.getByRole('button', { name: day, exact: true }).click()
    await picker.getByRole('spinbutton', { name: 'Hours' }).fill('09')
    await picker.getByRole('spinbutton', { name: 'Minutes' }).fill('30')
    await picker.getByRole('button', { name: 'Confirm date and time' }).click()
    await test.page.getByRole('button', { name: 'Schedule', exact: true }).click()
    await expect.poll(() => test.page.getByTestId('campaign-status').textContent()).toBe('SCHEDULED')
    const scheduled = await campaignOf(key, id)
    expect(scheduled.status).toBe('SCHEDULED')
    const when = new Date(scheduled.scheduledFor ?? '')
    expect(when.toISOString()).toBe(expected.toISOString())
    await expect.poll(() => test.page.getByText(when.toLocaleString()).count()).toBeGreaterThan(0)
    await audit.check('scheduled campaign')

    await test.page.getByRole('button', { name: 'Cancel schedule' }).click()
    await test.page
      .getByRole('dialog', { name: 'Cancel this campaign?' })
      .getByRole('button', { name: 'Cancel campaign' })
      .click()
    // Nothing was sent, so the campaign goes back to draft (DESIGN.md §4).
    await expect.poll(() => test.page.getByTestId('campaign-status').textContent()).toBe('DRAFT')
    expect((await campaignOf(key, id)).status).toBe('DRAFT')
    audit.expectClean()
  })

  it('previews the subject and body rendered for the audience’s first contact, or for one picked', async () => {
    // First by address among the subscribed, so the audience's sample.
    const key = await startProject(test.page, test.server.url, uniqueEmail(), 'Rendering')
    await callApi(test.server.url, key, 'POST', '/contacts', {
      email: 'aaa@people.example',
      subscribed: true,
      data: { firstName: 'Ada', plan: 'pro' },
    })
    await addPlanContacts(test.server.url, key)
    await addDomain(test.page, 'news.example')
    await test.page.getByRole('link', { name: 'Campaigns' }).click()
    await test.page.getByRole('link', { name: 'New campaign' }).first().click()
    await test.page.getByRole('textbox', { name: 'Name', exact: true }).fill('Personal news')
    await test.page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Hi {{ data.firstName ?? "there" }}')
    await test.page.getByRole('textbox', { name: 'From address', exact: true }).fill('news@news.example')
    const audit = accessibilityAudit(test.page)
    await test.page
      .getByRole('textbox', { name: 'HTML body', exact: true })
      .fill(
        '<p>Hello {{ data.firstName ?? "there" }}</p>{% if data.plan == "pro" %}<p>Thanks for going pro.</p>{% endif %}',
      )
    const preview = test.page.getByRole('region', { name: 'Preview' })
    const frame = test.page.frameLocator('iframe[title="Preview of the campaign body"]')
    await expect.poll(() => test.page.getByTestId('preview-subject').innerText()).toBe('Hi Ada')
    expect(await frame.locator('body').innerText()).toBe('Hello Ada\n\nThanks for going pro.')
    expect(await preview.getByRole('combobox', { name: 'Preview as' }).inputValue()).toBe('aaa@people.example')
    expect(await preview.innerText()).toContain('As the first contact of the audience gets it')
    // Neither the Liquid source nor its tags reach the preview.
    expect(await preview.innerText()).not.toContain('{{')
    await audit.check('campaign form with its rendered preview')

    // Another recipient, without a first name: the fallback, and no "pro" paragraph.
    await preview.getByRole('combobox', { name: 'Preview as' }).fill('free3')
    await test.page.getByRole('option', { name: 'free3@people.example' }).click()
    await expect.poll(() => test.page.getByTestId('preview-subject').innerText()).toBe('Hi there')
    await expect.poll(() => frame.locator('body').innerText()).toBe('Hello there')

    // The saved campaign's page shows it rendered for the first contact too.
    await test.page.getByRole('button', { name: 'Save draft' }).click()
    await test.page.getByRole('heading', { name: 'Personal news' }).waitFor()
    await expect.poll(() => test.page.getByTestId('preview-subject').innerText()).toBe('Hi Ada')
    await expect.poll(() => frame.locator('body').innerText()).toBe('Hello Ada\n\nThanks for going pro.')
    await audit.check('campaign page with its rendered preview')
    audit.expectClean()
  })

  it('sends a small campaign now: it reaches SENT with the API’s stats, and its emails are in the mailbox', async () => {
    const subject = 'Spring news for everyone'
    const key = await newCampaign('Sending', 'Spring news', subject)
    await expect.poll(() => test.page.getByTestId('audience-count').textContent()).toBe('4 recipients now')
    await test.page.getByRole('button', { name: 'Save draft' }).click()
    await test.page.getByRole('heading', { name: 'Spring news' }).waitFor()
    const id = campaignId()

    await test.page.getByRole('button', { name: 'Send test' }).click()
    await expect.poll(() => test.page.getByRole('status').filter({ hasText: 'Test email sent' }).count()).toBe(1)

    await test.page.getByRole('button', { name: 'Send now' }).click()
    await test.page
      .getByRole('dialog', { name: 'Send “Spring news” now?' })
      .getByRole('button', { name: 'Send now' })
      .click()
    await expect.poll(() => test.page.getByTestId('campaign-status').textContent(), { timeout: 90_000 }).toBe('SENT')

    const stats = (
      await callApi<{ data: Record<string, number> }>(test.server.url, key, 'GET', `/campaigns/${id}/stats`)
    ).data
    expect(stats.sentCount).toBe(4)
    // This server captures mail: the four show as captured, and no delivered count of 0 stands beside them.
    expect(stats.capturedCount).toBe(4)
    for (const counter of ['totalRecipients', 'sentCount', 'capturedCount', 'openedCount', 'bouncedCount']) {
      await expect
        .poll(() => test.page.getByTestId(`stat-${counter}`).locator('dd[data-count]').textContent())
        .toBe(String(stats[counter]))
    }
    expect(await test.page.getByTestId('stat-deliveredCount').count()).toBe(0)
    const chart = test.page.getByRole('figure', { name: 'Activity over time' })
    await chart.waitFor()
    // With the pointer on the chart its tooltip shows too, names and all, for the audit.
    await chart.locator('.recharts-bar-rectangle').first().hover()
    await test.page.locator('.recharts-tooltip-item').first().waitFor()
    const audit = accessibilityAudit(test.page)
    await audit.check('sent campaign with stats')

    await waitForCapture(test.server.url, key, subject)
    const recipients = async () => {
      const mailbox = await callApi<{ data: { subject: string; to: string[] }[] }>(
        test.server.url,
        key,
        'GET',
        '/mailbox',
      )
      return mailbox.data
        .filter((message) => message.subject === subject)
        .flatMap((message) => message.to)
        .sort()
    }
    await expect
      .poll(recipients, { timeout: 60_000 })
      .toEqual(['free3@people.example', 'free4@people.example', 'pro0@people.example', 'pro1@people.example'])
    await test.page.getByRole('link', { name: 'Mailbox' }).click()
    await expect.poll(() => test.page.getByRole('link', { name: new RegExp(`^${subject}`) }).count()).toBe(4)
    audit.expectClean()
  })
})
