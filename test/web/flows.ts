import type { Page } from 'playwright-core'

/** The dashboard's pages, as a user types them into the address bar. */
export function appUrl(base: string, path = ''): string {
  return `${base}/app${path}`
}

export async function signUp(page: Page, base: string, email: string, password = 'a long password'): Promise<void> {
  await page.goto(appUrl(base, '/signup'))
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign up' }).click()
  await page.waitForURL('**/app/projects/new')
}

export async function createProject(page: Page, name: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Project name' }).fill(name)
  await page.getByRole('button', { name: 'Create project' }).click()
  await page.waitForURL('**/app/keys')
  await page.getByRole('table', { name: `Keys of ${name}` }).waitFor()
}

/** The secret key as the keys page shows it once revealed. */
export async function readSecretKey(page: Page): Promise<string> {
  if (!page.url().endsWith('/app/keys')) await page.getByRole('link', { name: 'API keys' }).click()
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

/** A POST to the public API with the project's secret key; the answer's JSON, checked for the expected status. */
export async function postWithKey(base: string, key: string, path: string, body: unknown, status = 200) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json: unknown = await response.json()
  if (response.status !== status) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`)
  return json as { id?: string } & Record<string, unknown>
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
