import type { Locator, Page, Request } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { findChromium } from './browser.js'
import { appUrl, browserSession, callApi, pickOption } from './flows.js'
import { addSession, createProjectByApi, rememberProject, signUpByApi } from './sign-in.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath
  ? 'project switch in chromium'
  : 'project switch in chromium (skipped: no chromium binary found)'
/** Long enough to switch projects while the request waits, short enough to keep the test quick. */
const delayMs = 1_500

type Shop = { id: string; name: string; contact: string; workflow: string }

/**
 * One account with two projects, each with a contact and a workflow named after it, signed in in the page's context
 * with A chosen; the page's requests are recorded from now on.
 */
async function twoShops(page: Page, base: string) {
  const cookie = await signUpByApi(base, uniqueEmail())
  const shop = async (letter: string): Promise<Shop> => {
    const project = await createProjectByApi(base, cookie, `Shop ${letter}`)
    const contact = `buyer@shop-${letter.toLowerCase()}.example`
    const workflow = `Welcome to ${letter}`
    await callApi(base, project.secret, 'POST', '/contacts', { email: contact })
    await callApi(base, project.secret, 'POST', '/workflows', { name: workflow, eventName: 'signup' })
    return { id: project.id, name: project.name, contact, workflow }
  }
  const a = await shop('A')
  const b = await shop('B')
  await addSession(page.context(), base, cookie)
  await rememberProject(page.context(), base, a.id)
  return { a, b, requests: recordRequests(page) }
}

/** The API, not the dashboard's own files (under /app/). */
const isApi = (url: URL) => !url.pathname.startsWith('/app')

/** Every request the page makes to the API, with the project it named. */
function recordRequests(page: Page): { method: string; path: string; projectId: string | undefined }[] {
  const seen: { method: string; path: string; projectId: string | undefined }[] = []
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (!isApi(url) || request.resourceType() !== 'fetch') return
    seen.push({ method: request.method(), path: url.pathname, projectId: request.headers()['x-project-id'] })
  })
  return seen
}

/**
 * Notes, on every change of the page, whether the main area shows a text of the project not chosen in the header:
 * a mix-up that lasts one render is caught, not just one that is still there when the test looks.
 */
async function watchForMixUps(page: Page, shops: Shop[]): Promise<void> {
  await page.evaluate(`(() => {
    const shops = ${JSON.stringify(shops)}
    window.mixUps = []
    const check = () => {
      const chosen = document.querySelector('input[aria-label="Project"]')?.value
      const main = document.querySelector('main')?.innerText ?? ''
      for (const other of shops.filter((shop) => shop.name !== chosen)) {
        for (const text of [other.contact, other.workflow])
          if (chosen && main.includes(text)) window.mixUps.push(chosen + ' shows ' + text)
      }
    }
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
  })()`)
}

const mixUps = (page: Page) => page.evaluate('window.mixUps') as Promise<string[]>

/** Holds back the requests for which `matches` holds by `delayMs`, then lets them through. */
async function slowDown(page: Page, matches: (request: Request) => boolean): Promise<void> {
  await page.route(isApi, async (route) => {
    if (matches(route.request())) await new Promise((resolve) => setTimeout(resolve, delayMs))
    await route.continue()
  })
}

/** Which of `texts` the table shows, as cells or links named exactly so. */
function shown(table: Locator, role: 'cell' | 'link', texts: string[]): () => Promise<string[]> {
  return async () => {
    const found: string[] = []
    for (const text of texts)
      if ((await table.getByRole(role, { name: text, exact: true }).count()) > 0) found.push(text)
    return found
  }
}

/** A page on screen from the cache, or after one quick request: no reason to wait long. */
const soon = { timeout: 5_000 }

const named = (request: Request, projectId: string) => request.headers()['x-project-id'] === projectId
const pathOf = (request: Request) => new URL(request.url()).pathname

suite(name, { timeout: 120_000 }, () => {
  const session = browserSession()

  it('a list still loading when the user switches projects never shows under the other project', async () => {
    const { page, server } = session
    const { a, b, requests } = await twoShops(page, server.url)
    await slowDown(page, (request) => pathOf(request) === '/contacts' && named(request, a.id))

    const loadingA = page.waitForRequest((request) => pathOf(request) === '/contacts' && named(request, a.id))
    await page.goto(appUrl(server.url, '/contacts'))
    await watchForMixUps(page, [a, b])
    const slowRequest = await loadingA
    await pickOption(page, 'Project', b.name)
    const contacts = shown(page.getByRole('table', { name: 'Contacts' }), 'cell', [a.contact, b.contact])
    await expect.poll(contacts, soon).toEqual([b.contact])
    // A's answer arrives while B's page is on screen; a moment for the page to take it in.
    await (await slowRequest.response())?.finished()
    await page.waitForTimeout(300)
    expect(await contacts()).toEqual([b.contact])

    await pickOption(page, 'Project', a.name)
    await expect.poll(contacts, soon).toEqual([a.contact])
    expect(await mixUps(page)).toEqual([])

    const contactLists = requests.filter((request) => request.path === '/contacts')
    expect(contactLists.map((request) => request.projectId).slice(0, 2)).toEqual([a.id, b.id])
  })

  it('a change finishing after the switch refreshes its own project’s lists, not the other project’s', async () => {
    const { page, server } = session
    const { a, b, requests } = await twoShops(page, server.url)
    await slowDown(page, (request) => request.method() === 'PATCH' && named(request, a.id))

    await page.goto(appUrl(server.url, '/workflows'))
    await watchForMixUps(page, [a, b])
    await page.getByRole('link', { name: a.workflow, exact: true }).click()
    await page.getByRole('heading', { name: a.workflow, level: 1 }).waitFor()
    const enabling = page.waitForRequest((request) => request.method() === 'PATCH')
    await page.getByRole('switch', { name: 'Enabled' }).click()
    const patch = await enabling
    // The change succeeds while B is on screen; A's workflow lists are refetched then.
    const refetch = page.waitForRequest((request) => pathOf(request) === '/workflows' && request.method() === 'GET')
    await pickOption(page, 'Project', b.name)
    await patch.response()
    await (await refetch).response()

    await page.getByRole('link', { name: 'Workflows' }).click()
    const workflows = shown(page.getByRole('table', { name: 'Workflows' }), 'link', [a.workflow, b.workflow])
    await expect.poll(workflows, soon).toEqual([b.workflow])

    await pickOption(page, 'Project', a.name)
    await expect.poll(workflows, soon).toEqual([a.workflow])
    expect(await mixUps(page)).toEqual([])

    const change = requests.findIndex((request) => request.method === 'PATCH')
    expect(requests.filter((request) => request.method === 'PATCH').map((request) => request.projectId)).toEqual([a.id])
    // The refetch after the change asked for A's workflows, under whose key it is kept.
    const refetched = requests.slice(change + 1).find((request) => request.path === '/workflows')
    expect(refetched?.projectId).toBe(a.id)
  })

  it('every page names its project in each project request, and account requests name none', async () => {
    const { page, server } = session
    const { a, requests } = await twoShops(page, server.url)
    const failures: string[] = []
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${new URL(response.url()).pathname}`)
    })

    await page.goto(appUrl(server.url, '/setup'))
    const nav = page.getByRole('navigation', { name: 'Main' })
    await nav.getByRole('link', { name: 'Settings' }).waitFor()
    // A page's requests start when it mounts, which its heading shows: a client-side navigation does not reset the
    // load state, and the page before stays up while the next one's code loads.
    const heading = page.getByRole('main').getByRole('heading').first()
    for (const link of await nav.getByRole('link').allTextContents()) {
      const before = await heading.textContent()
      await nav.getByRole('link', { name: link, exact: true }).click()
      // The walk starts on Get started, whose heading stays.
      if (link !== 'Get started') await expect.poll(() => heading.textContent(), soon).not.toBe(before)
      await page.waitForLoadState('networkidle')
    }

    // Every page's list was among them.
    const lists = ['/contacts', '/templates', '/campaigns', '/segments', '/workflows', '/mailbox', '/activity']
    lists.push('/suppressions', '/analytics/timeseries', `/domains/project/${a.id}`, `/projects/${a.id}/setup-state`)
    await expect.poll(() => requests.map((request) => request.path), soon).toEqual(expect.arrayContaining(lists))
    expect(failures).toEqual([])
    // The session's own calls, and those naming the project in their path (`/projects/:id/...`), need no header.
    const accountOrPath = /^\/(users\/@me|auth\/|config$|projects\/)/
    const wrong = requests
      .filter((request) => request.projectId !== (accountOrPath.test(request.path) ? undefined : a.id))
      .map((request) => `${request.method} ${request.path}: ${request.projectId ?? 'no project'}`)
    expect(wrong).toEqual([])
  })
})
