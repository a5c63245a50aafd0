import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { addPlanContacts, appUrl, browserSession, callApi, postWithKey, startProject } from './flows.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath
  ? 'the dashboard on a 390 px phone'
  : 'the dashboard on a 390 px phone (skipped: no chromium binary found)'

const phone = { width: 390, height: 844 }

const longEmail = 'a-very-long-contact-address-that-goes-on-and-on-and-on@an-even-longer-domain-name.example'
const longTemplate = 'A template whose name is far too long to fit into any narrow column of a list'
const longEvent = 'checkout.completed-with-a-very-long-event-name'

type Listed = { data: { id: string }[] }

/**
 * A project with a row in every list, and the long names that widen pages: a long address, template name and
 * event name, a campaign sent, a workflow run by that event. The pages to walk, detail pages included.
 */
async function fillProject(base: string, key: string): Promise<string[]> {
  await addPlanContacts(base, key)
  await callApi(base, key, 'POST', '/domains', { domain: 'phone.example' })
  const template = await callApi<{ id: string }>(base, key, 'POST', '/templates', {
    name: longTemplate,
    subject: 'Hi {{ data.firstName ?? "there" }}',
    body: '<p>Hello {{ data.firstName ?? "there" }}</p>',
    from: 'news@phone.example',
    type: 'MARKETING',
  })
  const campaign = await callApi<{ data: { id: string } }>(base, key, 'POST', '/campaigns', {
    name: 'A campaign with a rather long name for its column',
    subject: 'Hi {{ data.firstName ?? "there" }}',
    body: '<p>Hello {{ data.firstName ?? "there" }}</p>',
    from: 'news@phone.example',
    audienceType: 'ALL',
  })
  const segment = await callApi<{ id: string }>(base, key, 'POST', '/segments', {
    name: 'Pro plan',
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  })
  const workflow = await postWithKey(base, key, '/workflows', { name: 'Checkout follow-up', eventName: longEvent }, 201)
  await callApi(base, key, 'PATCH', `/workflows/${workflow.id}`, { enabled: true })
  await postWithKey(base, key, '/v1/track', {
    email: longEmail,
    event: longEvent,
    subscribed: true,
    data: { firstName: 'Lovelace', plan: 'pro' },
  })
  const contacts = await callApi<Listed>(base, key, 'GET', '/contacts?limit=1')
  const executions = await waitForList(
    () => callApi<{ executions: { id: string }[] }>(base, key, 'GET', `/workflows/${workflow.id}/executions`),
    (body) => body.executions,
  )
  const sent = await callApi<{ data: { emails: { email: string }[] } }>(base, key, 'POST', '/v1/send', {
    from: 'news@phone.example',
    to: longEmail,
    subject: 'Your order is on its way',
    body: '<p>Soon.</p>',
  })
  const messages = await waitForList(
    () => callApi<Listed>(base, key, 'GET', '/mailbox'),
    (body) => body.data,
  )
  return [
    '/setup',
    '/keys',
    '/domains',
    '/contacts',
    `/contacts/${contacts.data[0]?.id}`,
    '/contacts/import',
    '/contacts/fields',
    '/templates',
    `/templates/${template.id}`,
    '/campaigns',
    '/campaigns/new',
    `/campaigns/${campaign.data.id}`,
    `/campaigns/${campaign.data.id}/edit`,
    '/segments',
    '/segments/new',
    `/segments/${segment.id}`,
    '/workflows',
    `/workflows/${workflow.id}`,
    `/workflows/${workflow.id}/executions`,
    `/workflows/${workflow.id}/executions/${executions[0]?.id}`,
    '/mailbox',
    `/mailbox/${messages[0]?.id}`,
    '/emails',
    `/emails/${sent.data.emails[0]?.email}`,
    '/activity',
    '/analytics',
    '/suppressions',
    '/smtp',
    '/webhooks',
    '/settings/project',
    '/settings/team',
    '/settings/billing',
    '/settings/security',
  ]
}

/** Asks until the list has a row (an execution, a captured message: the worker makes them a moment later). */
async function waitForList<T, Row>(ask: () => Promise<T>, rows: (body: T) => Row[]): Promise<Row[]> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const found = rows(await ask())
    if (found.length > 0) return found
    if (Date.now() > deadline) throw new Error('the list stayed empty')
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

type Box = { scrollWidth: number; clientWidth: number; scrollHeight: number; clientHeight: number }

/** Whether the element shows less than its text: cut by an ellipsis (or a line clamp). */
const isCut = (locator: Locator) =>
  locator.evaluate(
    (element: Box) => element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight,
  )

/**
 * Whether the navigation is on screen. Folded away it slides off to the left (and is inert): Playwright would still
 * call its links visible, so its box is what tells.
 */
async function navigationOnScreen(page: Page): Promise<boolean> {
  const box = await page.getByRole('navigation', { name: 'Main', includeHidden: true }).boundingBox()
  return box !== null && box.x + box.width > 0
}

suite(name, { timeout: 300_000 }, () => {
  const session = browserSession()

  it('fits every main page in 390 px: nothing scrolls sideways, the menu opens and Log out works', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail('phone'), 'Phone shop')
    const paths = await fillProject(server.url, key)
    await page.setViewportSize(phone)
    const audit = accessibilityAudit(page)

    const overflowing: Record<string, number> = {}
    for (const path of paths) {
      await page.goto(appUrl(server.url, path))
      await page.waitForLoadState('networkidle')
      await page.getByRole('main').waitFor()
      const [scrollWidth, clientWidth] = (await page.evaluate(
        '[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]',
      )) as [number, number]
      if (scrollWidth > clientWidth) overflowing[path] = scrollWidth
      // The navigation is folded into the header's menu, out of the way and out of the keyboard's reach.
      expect(await navigationOnScreen(page), path).toBe(false)
      expect(await page.locator('#main-navigation').getAttribute('inert'), path).not.toBeNull()
      expect(await page.getByRole('button', { name: 'Menu' }).isVisible(), path).toBe(true)
    }
    expect(overflowing).toEqual({})

    // The activity feed reads as cards on a phone, each with its details in full.
    await page.goto(appUrl(server.url, '/activity'))
    const feed = page.getByRole('list', { name: 'Activity' })
    await feed.getByRole('listitem').filter({ hasText: 'Tracked event' }).first().waitFor()
    const tracked = await feed.getByRole('listitem').filter({ hasText: 'Tracked event' }).first().innerText()
    expect(tracked).toContain(`Tracked ${longEvent} with `)
    expect(tracked).toContain('firstName: Lovelace')
    await audit.check('activity on a phone')

    // The menu holds the navigation, the project switch and Log out; following a link closes it.
    await page.getByRole('button', { name: 'Menu' }).click()
    const navigation = page.getByRole('navigation', { name: 'Main' })
    await navigation.getByRole('link', { name: 'Contacts', exact: true }).waitFor()
    await expect.poll(() => navigationOnScreen(page)).toBe(true)
    expect(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('true')
    expect(await navigation.getByRole('combobox', { name: 'Project' }).inputValue()).toBe('Phone shop')
    await audit.check('menu open')
    await navigation.getByRole('link', { name: 'Contacts', exact: true }).click()
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor()
    await expect.poll(() => navigationOnScreen(page)).toBe(false)
    expect(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('false')

    await page.getByRole('button', { name: 'Menu' }).click()
    await expect.poll(() => navigationOnScreen(page)).toBe(true)
    await navigation.getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL('**/app/login')
    await page.getByRole('button', { name: 'Log in' }).waitFor()
    audit.expectClean()
  })

  it('cuts long names with an ellipsis, the full text on hover and in the accessible name', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail('long'), 'Long names')
    await fillProject(server.url, key)

    await page.goto(appUrl(server.url, '/contacts'))
    const contact = page.getByRole('table', { name: 'Contacts' }).getByRole('link', { name: longEmail, exact: true })
    await contact.waitFor()
    expect(await contact.getAttribute('title')).toBe(longEmail)
    expect(await isCut(contact)).toBe(true)

    await page.goto(appUrl(server.url, '/templates'))
    const template = page
      .getByRole('table', { name: 'Templates' })
      .getByRole('link', { name: longTemplate, exact: true })
    await template.waitFor()
    expect(await template.getAttribute('title')).toBe(longTemplate)

    // The workflow's trigger node names the event in full, where it used to read "Trigger:…".
    await page.goto(appUrl(server.url, '/workflows'))
    await page.getByRole('link', { name: 'Checkout follow-up', exact: true }).click()
    const trigger = page.getByRole('group', { name: `Trigger step Trigger: ${longEvent}` })
    await trigger.waitFor()
    const stepName = trigger.getByTitle(`Trigger: ${longEvent}`)
    expect(await stepName.innerText()).toBe(`Trigger: ${longEvent}`)
    expect(await isCut(stepName)).toBe(false)

    // The contact's page: its address as the title, wrapped rather than cut, and its event named in full.
    await page.setViewportSize(phone)
    await page.goto(appUrl(server.url, '/contacts'))
    await page.getByRole('link', { name: longEmail, exact: true }).click()
    const title = page.getByRole('heading', { name: longEmail, level: 1 })
    await title.waitFor()
    expect(await isCut(title)).toBe(false)
    const activity = page.getByRole('list', { name: 'Recent activity' })
    await activity.getByText(longEvent, { exact: true }).waitFor()
    expect(await isCut(activity.getByText(longEvent, { exact: true }))).toBe(false)
  })
})
