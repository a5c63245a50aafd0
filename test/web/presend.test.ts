import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { addPlanContacts, appUrl, browserSession, callApi, dismissToasts } from './flows.js'
import { addSession, openNewProject, rememberProject, signUpByApi } from './sign-in.js'

type Check = { blocked: boolean; errors: number; override: { codes: string[] } | null }

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath
  ? 'pre-send check in chromium'
  : 'pre-send check in chromium (skipped: no chromium binary found)'

/** A campaign without an unsubscribe link and with an image without alt text: an error and warnings. */
const flawed = {
  name: 'Flawed news',
  subject: 'News without a way out',
  body: '<p>Our spring range is in: linen shirts, light jackets and canvas bags.</p><img src="https://cdn.example.com/a.png">',
  from: 'news@presend.example',
  audienceType: 'ALL',
}

suite(name, { timeout: 240_000 }, () => {
  const test = browserSession()

  /** An owner's project with contacts, a sender domain (capture mode: used unverified) and the flawed campaign. */
  async function flawedCampaign(projectName: string) {
    const { project } = await openNewProject(test.page, test.server.url, uniqueEmail(), projectName)
    const key = project.secret
    await addPlanContacts(test.server.url, key)
    await callApi(test.server.url, key, 'POST', '/domains', { domain: 'presend.example' })
    const campaign = await callApi<{ data: { id: string } }>(test.server.url, key, 'POST', '/campaigns', flawed)
    return { project, key, id: campaign.data.id }
  }

  it('shows the findings before sending, holds the send, and an owner sends it anyway', async () => {
    const { key, id } = await flawedCampaign('Presend owner')
    const audit = accessibilityAudit(test.page)
    await test.page.goto(appUrl(test.server.url, `/campaigns/${id}`))
    const panel = test.page.getByRole('region', { name: 'Pre-send check' })
    await panel.getByTestId('presend-findings').waitFor()
    expect(await panel.getByTestId('presend-summary').textContent()).toMatch(/^1 error stops this campaign/)
    const codes = await panel.locator('[data-code]').evaluateAll((items) => items.map((item) => item.dataset.code))
    expect(codes).toEqual([
      'unsubscribe_link_missing',
      'one_click_not_https',
      'text_part_thin',
      'image_missing_alt',
      'from_domain_not_ready',
    ])
    expect(await panel.locator('[data-code="image_missing_alt"]').innerText()).toContain(
      'https://cdn.example.com/a.png',
    )
    await audit.check('campaign with pre-send findings')

    // Held until the owner ticks the override.
    const sendNow = test.page.getByRole('button', { name: 'Send now' })
    const schedule = test.page.getByRole('button', { name: 'Schedule', exact: true })
    expect(await sendNow.isDisabled()).toBe(true)
    expect(await schedule.isDisabled()).toBe(true)
    await test.page.getByRole('checkbox', { name: /^Send anyway, despite the error of the pre-send check/ }).check()
    expect(await sendNow.isDisabled()).toBe(false)
    await audit.check('campaign with the override ticked')
    await sendNow.click()
    await test.page
      .getByRole('dialog', { name: 'Send “Flawed news” now?' })
      .getByRole('button', { name: 'Send now' })
      .click()
    await expect.poll(() => test.page.getByTestId('campaign-status').textContent(), { timeout: 90_000 }).toBe('SENT')
    await dismissToasts(test.page)
    expect(await test.page.getByTestId('presend-override').textContent()).toContain('unsubscribe_link_missing')
    const check = await callApi<{ data: Check }>(test.server.url, key, 'GET', `/campaigns/${id}/check`)
    expect(check.data.override?.codes).toEqual(['unsubscribe_link_missing'])
    await audit.check('campaign sent with the override')
    audit.expectClean()
  })

  it('a member sees the errors and no override; fixing the body clears them', async () => {
    const { project, key, id } = await flawedCampaign('Presend member')
    const memberEmail = uniqueEmail('member')
    const cookie = await signUpByApi(test.server.url, memberEmail)
    await callApi(test.server.url, key, 'POST', `/projects/${project.id}/members`, {
      email: memberEmail,
      role: 'MEMBER',
    })
    await test.context.clearCookies()
    await addSession(test.context, test.server.url, cookie)
    await rememberProject(test.context, test.server.url, project.id)
    await test.page.goto(appUrl(test.server.url, `/campaigns/${id}`))
    await test.page.getByTestId('presend-findings').waitFor()
    expect(await test.page.getByTestId('presend-blocked').textContent()).toContain('only a project owner')
    expect(await test.page.getByRole('checkbox').count()).toBe(0)
    expect(await test.page.getByRole('button', { name: 'Send now' }).isDisabled()).toBe(true)

    await callApi(test.server.url, key, 'PUT', `/campaigns/${id}`, {
      body: `${flawed.body.replace('">', '" alt="Shirts">')}<a href="{{ unsubscribeUrl }}">Unsubscribe</a>`,
    })
    await test.page.reload()
    await expect
      .poll(() => test.page.getByTestId('presend-summary').textContent())
      .toMatch(/^Ready to send, with 3 warnings/)
    expect(await test.page.getByRole('button', { name: 'Send now' }).isDisabled()).toBe(false)
  })

  it('the template editor shows the saved template’s findings as warnings, and refreshes them after a save', async () => {
    const { project } = await openNewProject(test.page, test.server.url, uniqueEmail(), 'Presend templates')
    await callApi(test.server.url, project.secret, 'POST', '/domains', { domain: 'presend.example' })
    const template = await callApi<{ id: string }>(test.server.url, project.secret, 'POST', '/templates', {
      name: 'Letter',
      subject: 'MONTHLY LETTER',
      body: flawed.body,
      from: flawed.from,
      type: 'MARKETING',
    })
    const audit = accessibilityAudit(test.page)
    await test.page.goto(appUrl(test.server.url, `/templates/${template.id}`))
    const panel = test.page.getByRole('region', { name: 'Pre-send check' })
    await panel.locator('[data-code="subject_all_caps"]').waitFor()
    expect(await panel.locator('[data-code]').count()).toBe(6)
    await audit.check('template editor with pre-send findings')

    await test.page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Monthly letter')
    await test.page.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => panel.locator('[data-code="subject_all_caps"]').count()).toBe(0)
    expect(await panel.locator('[data-code="unsubscribe_link_missing"]').count()).toBe(1)
    audit.expectClean()
  })
})
