import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import {
  addDomain,
  appUrl,
  browserSession,
  createProject,
  dismissToasts,
  readSecretKey,
  sendEmail,
  signUp,
  startProject,
  waitForCapture,
} from './flows.js'
import { openNewProject } from './sign-in.js'

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
// Each test drives a real browser through several pages on a shared 2-core machine.
const timeout = 240_000
const name = chromiumPath ? 'dashboard in chromium' : 'dashboard in chromium (skipped: no chromium binary found)'

suite(name, { timeout }, () => {
  const session = browserSession()

  it('signs up, creates a project, and shows an email sent with the secret key in the mailbox', async () => {
    const { page, server } = session
    await signUp(page, server.url, uniqueEmail())
    await createProject(page, 'Shop')
    const key = await readSecretKey(page)
    await addDomain(page, 'shop.example')

    const sent = await sendEmail(server.url, key, {
      from: 'hello@shop.example',
      to: 'ada@example.net',
      subject: 'Welcome to the shop',
      body: '<h1>Hello Ada</h1><p>Your order is on its way.</p>',
    })
    expect(sent.status).toBe(200)

    // The worker captures the message a moment after the 200; on a busy machine that can take a while.
    await waitForCapture(server.url, key, 'Welcome to the shop')
    await page.getByRole('link', { name: 'Mailbox' }).click()
    const message = page.getByRole('link', { name: /Welcome to the shop/ })
    await message.click()
    await expect.poll(() => page.getByRole('heading', { name: 'Welcome to the shop' }).isVisible()).toBe(true)
    await expect
      .poll(async () => page.getByRole('table', { name: 'Message headers' }).textContent())
      .toContain('ada@example.net')
    const body = page.frameLocator('iframe[title^="Message:"]')
    await expect.poll(() => body.getByRole('heading', { name: 'Hello Ada' }).isVisible()).toBe(true)
    expect(await body.locator('p').first().textContent()).toBe('Your order is on its way.')
  })

  it('rotates keys after a confirmation: the old secret key stops at once, the new one works', async () => {
    const { page, server } = session
    await openNewProject(page, server.url, uniqueEmail(), 'Rotation')
    const oldKey = await readSecretKey(page)
    const listContacts = (key: string) =>
      fetch(`${server.url}/contacts`, { headers: { authorization: `Bearer ${key}` } })
    expect((await listContacts(oldKey)).status).toBe(200)

    await page.getByRole('button', { name: 'Rotate keys…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Rotate both keys?' })
    expect(await dialog.textContent()).toContain('stop working at once')
    // Cancelling changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect((await listContacts(oldKey)).status).toBe(200)

    await page.getByRole('button', { name: 'Rotate keys…' }).click()
    await page.getByRole('button', { name: 'Rotate keys now' }).click()
    await expect.poll(() => page.getByTestId('secret-key').textContent()).not.toBe(oldKey)
    const newKey = (await page.getByTestId('secret-key').textContent()) ?? ''
    expect(newKey).toMatch(/^sk_[0-9a-f]{64}$/)

    const old = await listContacts(oldKey)
    expect(old.status).toBe(401)
    expect(((await old.json()) as { error: { code: string } }).error.code).toBe('INVALID_API_KEY')
    expect((await listContacts(newKey)).status).toBe(200)

    // The copy button copies the key shown.
    await page.getByRole('button', { name: 'Copy secret key' }).click()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(newKey)
  })

  it('logs out and back in, and sends an unknown session to the login page', async () => {
    const { page, server } = session
    const email = uniqueEmail()
    await openNewProject(page, server.url, email, 'Session')
    // POST, which another site cannot make with the SameSite=Lax cookie (GET is kept for the spec's clients).
    const logout = page.waitForRequest((request) => new URL(request.url()).pathname === '/auth/logout')
    await page.getByRole('button', { name: 'Log out' }).click()
    expect((await logout).method()).toBe('POST')
    await page.waitForURL('**/app/login')

    await page.goto(appUrl(server.url, '/contacts'))
    await page.waitForURL('**/app/login?next=%2Fcontacts')
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('wrong password')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').textContent()).toMatch(/invalid|incorrect/i)

    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('a long password')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL('**/app/contacts')
    await page.getByRole('heading', { name: 'Contacts', exact: true }).waitFor()
  })

  /*
   * One walk through the dashboard's pages and the states that have broken an audit before: open dialogs, a toast,
   * the placeholders of the file and date pickers, the code editor and the charts. Run once in each colour scheme the
   * system can ask for, which the dashboard follows until its switch is used.
   */
  async function auditEveryPageState(colorScheme: 'light' | 'dark') {
    const { page, server } = session
    await page.emulateMedia({ colorScheme })
    const audit = accessibilityAudit(page)
    await page.goto(appUrl(server.url, '/signup'))
    await page.getByRole('button', { name: 'Sign up' }).waitFor()
    expect(await page.locator('html').getAttribute('data-mantine-color-scheme')).toBe(colorScheme)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Create your account')
    await audit.check('sign up')
    const email = uniqueEmail()
    await signUp(page, server.url, email)
    await audit.check('create a project')
    await createProject(page, 'Audit')
    await audit.check('setup checklist')
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByRole('table', { name: 'Keys of Audit' }).waitFor()
    await audit.check('API keys')
    // The secret key makes the send command wider than its box, which then scrolls.
    await page.getByRole('button', { name: 'Show secret key' }).click()
    await audit.check('API keys, secret shown')
    await page.getByRole('button', { name: 'Rotate keys…' }).click()
    await page.getByRole('dialog').waitFor()
    await audit.check('rotate keys dialog')
    await page.getByRole('button', { name: 'Rotate keys now' }).click()
    // A toast closes by itself after a few seconds, but not under the pointer.
    const toast = page.getByRole('alert').filter({ hasText: 'Keys rotated' })
    await toast.hover()
    await audit.check('keys rotated toast')
    expect(await toast.isVisible()).toBe(true)
    await dismissToasts(page)
    const key = await readSecretKey(page)

    await addDomain(page, 'audit.example')
    await audit.check('domains')
    // This server's relay is off: the page says so and how to turn it on (test/web/smtp-relay.test.ts audits it on).
    await page.getByRole('link', { name: 'SMTP relay' }).click()
    await page.getByText('The SMTP relay is off on this server').waitFor()
    await audit.check('SMTP relay')

    await page.getByRole('link', { name: 'Contacts' }).click()
    await page.getByText('No contacts yet').waitFor()
    await audit.check('contacts (empty)')
    await page.getByRole('link', { name: 'Import CSV' }).click()
    await page.getByText('Choose a .csv file').waitFor()
    await audit.check('import contacts')
    const sent = await sendEmail(server.url, key, {
      from: 'news@audit.example',
      to: 'grace@example.net',
      subject: 'Audit mail',
      body: '<p>Checked by axe</p>',
    })
    expect(sent.status).toBe(200)
    // Loaded afresh: the list seen a moment ago is still in the query cache.
    await page.goto(appUrl(server.url, '/contacts'))
    await page.getByRole('link', { name: 'grace@example.net' }).click()
    await page.getByRole('heading', { name: 'grace@example.net' }).waitFor()
    await audit.check('contact')

    await page.getByRole('link', { name: 'Templates' }).click()
    await page.getByText('No templates yet').waitFor()
    await audit.check('templates (empty)')
    await page.getByRole('link', { name: 'New template' }).click()
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Receipt')
    await page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Your receipt')
    await page.getByRole('textbox', { name: 'From address', exact: true }).fill('billing@audit.example')
    await audit.check('template editor')
    await page.getByRole('button', { name: 'Create template' }).click()
    await page.getByRole('heading', { name: 'Edit Receipt' }).waitFor()
    await page.getByRole('link', { name: 'All templates' }).click()
    await page.getByRole('link', { name: 'Receipt' }).waitFor()
    await audit.check('templates')

    await page.getByRole('link', { name: 'Segments' }).click()
    await page.getByText('No segments yet').waitFor()
    await audit.check('segments (empty)')
    await page.getByRole('link', { name: 'Campaigns' }).click()
    await page.getByText('No campaigns yet').waitFor()
    await audit.check('campaigns (empty)')
    await page.getByRole('link', { name: 'New campaign' }).click()
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('November news')
    await page.getByRole('textbox', { name: 'Subject', exact: true }).fill('What is new')
    await page.getByRole('textbox', { name: 'From address', exact: true }).fill('news@audit.example')
    await audit.check('new campaign')
    await page.getByRole('button', { name: 'Save draft' }).click()
    // A saved campaign opens on its own page, to send it from there.
    await page.getByRole('heading', { name: 'November news' }).waitFor()
    await dismissToasts(page)
    await audit.check('campaign (draft)')
    await page.getByRole('button', { name: 'Send at' }).click()
    await page.getByRole('dialog', { name: 'Send at' }).waitFor()
    await audit.check('schedule date picker')
    // Next month's calendar shows days of the months around it that can be picked.
    await page.getByRole('button', { name: 'Next month' }).click()
    await audit.check('schedule date picker, next month')
    await page.keyboard.press('Escape')
    await page.getByRole('link', { name: 'All campaigns' }).click()
    await page.getByRole('table', { name: 'Campaigns' }).getByText('November news').waitFor()
    expect(await page.getByRole('table', { name: 'Campaigns' }).textContent()).toContain('DRAFT')
    await audit.check('campaigns')

    await waitForCapture(server.url, key, 'Audit mail')
    await page.getByRole('link', { name: 'Mailbox' }).click()
    await page.getByRole('link', { name: /Audit mail/ }).click()
    await page.getByRole('heading', { name: 'Audit mail' }).waitFor()
    await audit.check('mailbox')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Emails', exact: true }).click()
    await page.getByRole('table', { name: 'Emails', exact: true }).getByRole('link', { name: 'Audit mail' }).click()
    await page.getByRole('list', { name: 'Timeline' }).waitFor()
    await audit.check('email timeline')
    await page.getByRole('link', { name: 'All emails' }).click()
    await page.getByRole('table', { name: 'Emails', exact: true }).waitFor()
    await audit.check('emails')
    await page.getByRole('link', { name: 'Analytics' }).click()
    await page.locator('.recharts-line').first().waitFor()
    await audit.check('analytics')

    await page.getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL('**/app/login')
    await audit.check('log in')
    audit.expectClean()
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    it(
      `every page state passes an axe check in the ${colorScheme} colour scheme, with no serious or critical violation`,
      { timeout: 480_000 },
      () => auditEveryPageState(colorScheme),
    )
  }

  it('shows field errors from the API next to their fields', async () => {
    const { page, server } = session
    await openNewProject(page, server.url, uniqueEmail(), 'Errors')
    await page.getByRole('link', { name: 'Domains' }).click()
    await page.getByRole('textbox', { name: 'Domain', exact: true }).fill('not a domain')
    await page.getByRole('button', { name: 'Add domain' }).click()
    const input = page.getByRole('textbox', { name: 'Domain', exact: true })
    await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true')
    const describedBy = (await input.getAttribute('aria-describedby')) ?? ''
    const message = await page
      .locator(`[id="${describedBy.split(' ').find((id) => id.includes('error'))}"]`)
      .textContent()
    expect(message).toContain('must be a domain name')
    expect(await page.getByText('No sender domains yet').isVisible()).toBe(true)
  })

  it('lists contacts page by page with search, sort and the total the API counts', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Contacts')
    for (let i = 0; i < 30; i++) {
      const email = `person${String(i).padStart(2, '0')}@${i % 3 === 0 ? 'three' : 'other'}.example`
      const created = await fetch(`${server.url}/contacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email, subscribed: true, data: { n: i } }),
      })
      expect(created.status).toBe(201)
    }
    await page.getByRole('link', { name: 'Contacts' }).click()
    const table = page.getByRole('table', { name: 'Contacts' })
    const emails = async () => (await table.getByRole('link').allTextContents()).map((text) => text.trim())
    await page.getByText('30 contacts').waitFor()
    await expect.poll(emails).toHaveLength(25)

    await page.getByRole('combobox', { name: 'Sort' }).click()
    await page.getByRole('option', { name: 'Email, A to Z' }).click()
    await expect.poll(async () => (await emails())[0]).toBe('person00@three.example')
    await page.getByRole('button', { name: 'Next' }).click()
    await expect
      .poll(emails)
      .toEqual([
        'person25@other.example',
        'person26@other.example',
        'person27@three.example',
        'person28@other.example',
        'person29@other.example',
      ])
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true)
    await page.getByRole('button', { name: 'Previous' }).click()
    await expect.poll(emails).toHaveLength(25)

    await page.getByRole('searchbox', { name: 'Search' }).fill('three')
    await expect.poll(emails).toHaveLength(10)
    await page.getByText('10 contacts').waitFor()
    await table.getByRole('link', { name: 'person03@three.example' }).click()
    await page.getByRole('heading', { name: 'person03@three.example' }).waitFor()
    expect(await page.getByRole('table', { name: 'Data' }).textContent()).toContain('3')
  })
})
