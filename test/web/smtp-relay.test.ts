import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { unusedPort } from '../helpers/emails.js'
import { uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { appUrl, browserSession, callApi } from './flows.js'
import { openNewProject } from './sign-in.js'

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath ? 'the SMTP relay page in chromium' : 'the SMTP relay page in chromium (skipped: no chromium)'

/** The settings table's row for one setting: its value cell's text, hint included. */
const settingText = (page: Page, setting: string) =>
  page
    .getByRole('table', { name: 'SMTP settings' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: setting, exact: true }) })
    .getByRole('cell')
    .first()
    .textContent()

const clipboard = async (page: Page) => String(await page.evaluate('navigator.clipboard.readText()'))

suite(name, { timeout: 240_000 }, () => {
  const session = browserSession()

  it('says the relay is off, why, and which variables turn it on, when the server runs without it', async () => {
    // The web tier's shared server runs with the relay off, as a production server without certificate files does.
    const { page, server } = session
    const { project } = await openNewProject(page, server.url, uniqueEmail(), 'Relay off')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SMTP relay' }).click()
    await page.waitForURL('**/app/smtp')
    // The page's code loads on first visit, the page before staying up meanwhile.
    await page.getByRole('heading', { name: 'SMTP relay', level: 1 }).waitFor()
    const off = page.getByRole('status').filter({ hasText: 'The SMTP relay is off on this server' })
    await off.waitFor()
    const text = (await off.textContent()) ?? ''
    expect(text).toContain('The server says: off in tests unless asked for.')
    expect(text).toContain('SMTP_RELAY_TLS_KEY_FILE')
    expect(text).toContain('SMTP_RELAY_TLS_CERT_FILE')
    // No settings to paste, and no key on show.
    expect(await page.getByRole('table', { name: 'SMTP settings' }).count()).toBe(0)
    expect(await page.getByText(project.secret).count()).toBe(0)
    const audit = accessibilityAudit(page)
    await audit.check('SMTP relay, off')
    audit.expectClean()
  })

  describe('on a server whose relay runs (development, self-signed)', () => {
    let relayServer: TestServer
    let starttlsPort: number
    let tlsPort: number

    beforeAll(async () => {
      starttlsPort = await unusedPort()
      tlsPort = await unusedPort()
      // A second server on the web tier's database, serving the same dashboard build, with the relay configured as
      // a development server has it (MAIL_TRANSPORT=capture, no certificate files).
      relayServer = await startTestServer({
        databaseUrl: inject('webDatabaseUrl'),
        worker: false,
        config: {
          smtpRelay: {
            enabled: true,
            host: '127.0.0.1',
            publicHost: 'smtp.relay-page.example',
            starttlsPort,
            tlsPort,
            tls: 'self-signed',
            maxRecipients: 25,
          },
        },
      })
    })
    afterAll(async () => {
      await relayServer?.close()
    })

    it('shows the host, both ports with their security, the user name and the secret key as the password', async () => {
      const { page, context } = session
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: relayServer.url })
      const { project } = await openNewProject(page, relayServer.url, uniqueEmail(), 'Relay shop')
      // The keys page, where a user holding the secret key starts, points here.
      await page.getByRole('link', { name: 'SMTP relay page' }).click()
      await page.waitForURL('**/app/smtp')
      await page.getByRole('heading', { name: 'SMTP relay', level: 1 }).waitFor()
      await page.getByRole('table', { name: 'SMTP settings' }).waitFor()

      expect(await settingText(page, 'Host')).toBe('smtp.relay-page.example')
      expect(await settingText(page, 'Port (STARTTLS)')).toMatch(new RegExp(`^${starttlsPort}Security STARTTLS`))
      expect(await settingText(page, 'Port (SSL/TLS)')).toMatch(new RegExp(`^${tlsPort}Security SSL/TLS`))
      expect(await settingText(page, 'User name')).toMatch(/^mailroomAny user name works, plunk included/)
      expect(await settingText(page, 'Password')).toMatch(/^sk_••••••••This project's secret key/)
      expect(await settingText(page, 'Recipients per message')).toMatch(/^25Further recipients are refused/)
      const selfSigned = page.getByRole('status').filter({ hasText: 'Self-signed certificate (development)' })
      expect(await selfSigned.textContent()).toContain('SMTP_RELAY_TLS_CERT_FILE')
      // Neither key is printed; the password copies as the secret key, whole.
      expect(await page.getByText(project.secret).count()).toBe(0)
      expect(await page.getByText(project.public).count()).toBe(0)

      const copies: [string, string][] = [
        ['Copy host', 'smtp.relay-page.example'],
        ['Copy STARTTLS port', String(starttlsPort)],
        ['Copy SSL/TLS port', String(tlsPort)],
        ['Copy user name', 'mailroom'],
        ['Copy password', project.secret],
      ]
      for (const [button, value] of copies) {
        await page.getByRole('button', { name: button, exact: true }).click()
        expect(await clipboard(page), button).toBe(value)
      }
      // The copy buttons work from the keyboard too.
      await page.evaluate('navigator.clipboard.writeText("")')
      await page.getByRole('button', { name: 'Copy host', exact: true }).focus()
      await page.keyboard.press('Tab')
      await page.keyboard.press('Tab')
      await page.keyboard.press('Tab')
      await page.keyboard.press('Enter')
      expect(await clipboard(page)).toBe('mailroom')

      // The swaks command waits for a sender domain, then copies with the secret key.
      expect(await page.getByRole('main').getByText('add your sender domain').count()).toBe(1)
      await callApi(relayServer.url, project.secret, 'POST', '/domains', { domain: 'relay-page.example' })
      await page.reload()
      const command = page.getByRole('main').getByText(/^swaks --server/)
      await command.waitFor()
      expect(await command.textContent()).toContain("--auth-password 'sk_••••••••'")
      await page.getByRole('button', { name: 'Copy swaks command' }).click()
      const copied = await clipboard(page)
      expect(copied).toContain(`swaks --server smtp.relay-page.example --port ${starttlsPort} --tls`)
      expect(copied).toContain(`--auth-user mailroom --auth-password '${project.secret}'`)
      expect(copied).toContain("--from 'hello@relay-page.example'")
    })

    for (const colorScheme of ['light', 'dark'] as const) {
      it(`passes an axe check in the ${colorScheme} colour scheme, with one h1`, async () => {
        const { page } = session
        await page.emulateMedia({ colorScheme })
        await openNewProject(page, relayServer.url, uniqueEmail(), `Relay ${colorScheme}`)
        await page.goto(appUrl(relayServer.url, '/smtp'))
        await page.getByRole('table', { name: 'SMTP settings' }).waitFor()
        await page.getByRole('main').getByText('add your sender domain').waitFor()
        const audit = accessibilityAudit(page)
        await audit.check(`SMTP relay, ${colorScheme}`)
        audit.expectClean()
      })
    }
  })
})
