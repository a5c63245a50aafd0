import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { findChromium } from './browser.js'
import { addPlanContacts, appUrl, browserSession, callApi, startProject } from './flows.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath
  ? 'the dashboard on a 1024 px laptop'
  : 'the dashboard on a 1024 px laptop (skipped: no chromium binary found)'

const laptop = { width: 1024, height: 768 }

const pages = [
  '/setup',
  '/keys',
  '/domains',
  '/contacts',
  '/contacts/import',
  '/contacts/fields',
  '/templates',
  '/campaigns',
  '/campaigns/new',
  '/segments',
  '/segments/new',
  '/workflows',
  '/activity',
  '/analytics',
  '/suppressions',
  '/mailbox',
  '/settings/project',
  '/settings/team',
  '/settings/billing',
  '/settings/security',
]

suite(name, { timeout: 240_000 }, () => {
  const session = browserSession()

  it('fits every main page in 1024 px: nothing scrolls sideways, the navigation stays in view', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail('laptop'), 'Laptop shop')
    // Rows in the tables, which are what grows widest.
    await addPlanContacts(server.url, key)
    await callApi(server.url, key, 'POST', '/domains', { domain: 'laptop.example' })
    await callApi(server.url, key, 'POST', '/campaigns', {
      name: 'A campaign with a rather long name for its column',
      subject: 'News',
      body: '<p>News</p>',
      from: 'news@laptop.example',
      audienceType: 'ALL',
    })
    await page.setViewportSize(laptop)

    const overflowing: Record<string, number> = {}
    for (const path of pages) {
      await page.goto(appUrl(server.url, path))
      await page.waitForLoadState('networkidle')
      await page.getByRole('main').waitFor()
      const width = await page.evaluate('document.documentElement.scrollWidth')
      if (Number(width) > laptop.width) overflowing[path] = Number(width)
      expect(await page.getByRole('link', { name: 'Contacts', exact: true }).isVisible(), path).toBe(true)
    }
    expect(overflowing).toEqual({})
  })
})
