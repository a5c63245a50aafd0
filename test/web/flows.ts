import { tmpdir } from 'node:os'
import path from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest'
import { attachTestServer, type TestServer } from '../helpers/server.js'
import { defaultPassword, openNewProject } from './sign-in.js'

/** The dashboard's pages, as a user types them into the address bar. */
export function appUrl(base: string, path = ''): string {
  return `${base}/app${path}`
}

export async function signUp(page: Page, base: string, email: string, password = defaultPassword): Promise<void> {
  await page.goto(appUrl(base, '/signup'))
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign up' }).click()
  await page.waitForURL('**/app/projects/new')
}

/** The create project form; a new project opens on its setup checklist. */
export async function createProject(page: Page, name: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Project name' }).fill(name)
  await page.getByRole('button', { name: 'Create project' }).click()
  await page.waitForURL('**/app/setup')
  await page.getByRole('heading', { name: `Set up ${name}` }).waitFor()
}

/** The secret key as the keys page shows it once revealed. */
export async function readSecretKey(page: Page): Promise<string> {
  if (!page.url().endsWith('/app/keys')) await page.getByRole('link', { name: 'API keys' }).click()
  await page.getByRole('table', { name: /^Keys of / }).waitFor()
  const show = page.getByRole('button', { name: 'Show secret key' })
  if (await show.isVisible()) await show.click()
  const key = (await page.getByTestId('secret-key').textContent()) ?? ''
  if (!/^sk_[0-9a-f]{64}$/.test(key)) throw new Error(`the keys page shows "${key}" as the secret key`)
  return key
}

export async function addDomain(page: Page, domain: string): Promise<void> {
  await page.getByRole('link', { name: 'Domains' }).click()
  await page.getByRole('textbox', { name: 'Domain', exact: true }).fill(domain)
  await page.getByRole('button', { name: 'Add domain' }).click()
  await page.getByRole('heading', { name: domain }).waitFor()
}

export type SendBody = { from: string; to: string; subject: string; body: string }

/** A send through the public API with the project's secret key, as an integration would do it. */
export async function sendEmail(base: string, key: string, body: SendBody): Promise<Response> {
  return fetch(`${base}/v1/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** Waits until the capture transport has stored a message with this subject (the API's own mailbox list). */
export async function waitForCapture(base: string, key: string, subject: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const response = await fetch(`${base}/mailbox`, { headers: { authorization: `Bearer ${key}` } })
    const page = (await response.json()) as { data?: { subject: string }[] }
    if (page.data?.some((message) => message.subject === subject)) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`no captured message "${subject}" after ${timeoutMs} ms`)
}

/** Opens a link from an account email on the test server (the email names PUBLIC_URL, not the test's port). */
export async function openMailedLink(page: Page, base: string, link: string): Promise<void> {
  const url = new URL(link)
  await page.goto(`${base}${url.pathname}${url.search}`)
}

/**
 * The web tier's shared server and chromium (test/web/global-setup.ts), connected to once per file; a fresh context
 * and page per test, and a screenshot in the temp directory when a test fails. Read `session.page` (and the others)
 * inside tests: they are set by the hooks. `server` reaches the shared server's database too (attachTestServer).
 */
export function browserSession() {
  const session = {} as { server: TestServer; browser: Browser; context: BrowserContext; page: Page }
  beforeAll(async () => {
    session.server = await attachTestServer(inject('webServerUrl'), inject('webDatabaseUrl'))
    session.browser = await chromium.connect(inject('browserWsEndpoint'))
  })
  afterAll(async () => {
    // Disconnects, closing this file's contexts; the shared browser stays up for the next file.
    await session.browser?.close()
    await session.server?.close()
  })
  beforeEach(async () => {
    session.context = await session.browser.newContext({ viewport: { width: 1280, height: 900 } })
    await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.server.url })
    session.page = await session.context.newPage()
  })
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      const file = path.join(tmpdir(), `mailroom-web-${task.name.slice(0, 40).replace(/\W+/g, '-')}.png`)
      await session.page.screenshot({ path: file, fullPage: true }).catch(() => {})
    }
    await session.context.close()
  })
  return session
}

/** A new account and project, signed in through the API, the page on the project's keys: its secret key. */
export async function startProject(page: Page, base: string, email: string, name: string): Promise<string> {
  return (await openNewProject(page, base, email, name)).project.secret
}

/** A JSON call to the API with the project's secret key, as an integration makes it: its status and body. */
export async function fetchApi<T>(base: string, key: string, method: string, url: string, body?: unknown) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T }
}

/** A JSON call to the API with the project's secret key, as a test's setup or its check of what the page shows. */
export async function callApi<T>(base: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetchApi<T>(base, key, method, path, body)
  if (response.status < 200 || response.status > 299) {
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`)
  }
  return response.body
}

/** Picks an option of a Mantine Select (or Autocomplete) found by its accessible name inside `scope`. */
export async function chooseOption(
  page: Page,
  scope: Pick<Page, 'getByRole'>,
  label: string,
  option: string,
): Promise<void> {
  await scope.getByRole('combobox', { name: label, exact: true }).click()
  await page.getByRole('option', { name: option, exact: true }).click()
}

/**
 * Five contacts by API: `pro0`–`pro2` on the pro plan (`pro2` unsubscribed) and `free3`, `free4` on the free one,
 * all `@people.example`.
 */
export async function addPlanContacts(base: string, key: string): Promise<void> {
  const plans = ['pro', 'pro', 'pro', 'free', 'free']
  for (const [index, plan] of plans.entries()) {
    await callApi(base, key, 'POST', '/contacts', {
      email: `${plan}${index}@people.example`,
      subscribed: index !== 2,
      data: { plan },
    })
  }
}

/** A POST to the public API with the project's secret key; the answer's JSON, checked for the expected status. */
export async function postWithKey(base: string, key: string, path: string, body: unknown, status = 200) {
  const response = await fetchApi<{ id?: string } & Record<string, unknown>>(base, key, 'POST', path, body)
  if (response.status !== status)
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(response.body)}`)
  return response.body
}

/** Picks an option of a Mantine Select or Autocomplete by its label. */
export async function pickOption(page: Page, label: string, option: string | RegExp): Promise<void> {
  await page.getByRole('combobox', { name: label, exact: true }).click()
  await page.getByRole('option', { name: option }).click()
}

/** Closes the toasts, which sit over the top-right of the page for a few seconds. */
export async function dismissToasts(page: Page): Promise<void> {
  const dismiss = page.getByRole('button', { name: 'Dismiss' })
  // One at a time: the list shifts as each closes, and one may close by itself meanwhile.
  for (let tries = 0; tries < 10 && (await dismiss.count()) > 0; tries++) {
    await dismiss
      .first()
      .click({ timeout: 2_000 })
      .catch(() => undefined)
  }
}
