import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js'
import { uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { addDomain, browserSession, callApi } from './flows.js'
import { openNewProject } from './sign-in.js'

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath ? 'the domain audit in chromium' : 'the domain audit in chromium (skipped: no chromium)'

const clipboard = async (page: import('playwright-core').Page) =>
  String(await page.evaluate('navigator.clipboard.readText()'))

suite(name, { timeout: 240_000 }, () => {
  const session = browserSession()
  let dns: TestDnsServer
  let server: TestServer

  beforeAll(async () => {
    // A second server on the web tier's database, serving the same dashboard, sending through an SMTP relay and
    // looking DNS up at a local server, so the audit judges records this test publishes.
    dns = await startDnsServer()
    server = await startTestServer({
      databaseUrl: inject('webDatabaseUrl'),
      worker: false,
      config: { mailTransport: 'smtp', smtpUrl: 'smtp://127.0.0.1:9', dnsServers: [dns.address] },
    })
  })
  afterAll(async () => {
    await server?.close()
    await dns?.close()
  })

  it('shows each finding with its reason and the record to copy, and sets a return path that verifies', async () => {
    const { page, context } = session
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    const { project } = await openNewProject(page, server.url, uniqueEmail(), 'Audited shop')
    dns.set('audited-shop.example', 'TXT', ['v=spf1 ip4:127.0.0.1 include:audited-shop.example ~all'])
    dns.set('_dmarc.audited-shop.example', 'TXT', ['v=DMARC1; p=none'])
    await addDomain(page, 'audited-shop.example')
    const [domain] = await callApi<DomainView[]>(server.url, project.secret, 'GET', '/domains/project/current')
    await page.getByText('Not audited yet.').waitFor()
    await page.getByRole('button', { name: 'Check DNS now' }).click()

    const findings = page.getByRole('region', { name: 'What receivers will see' }).getByRole('listitem')
    const loop = findings.filter({ hasText: 'spf_loop' })
    await loop.waitFor()
    expect(await loop.textContent()).toContain('comes back to itself (audited-shop.example → audited-shop.example)')
    await page.getByRole('button', { name: 'Copy spf_loop record value', exact: true }).click()
    expect(await clipboard(page)).toBe('v=spf1 ip4:127.0.0.1 ~all')
    await page.getByRole('button', { name: 'Copy dkim_missing record name', exact: true }).click()
    expect(await clipboard(page)).toBe(`${domain?.dkimSelector}._domainkey.audited-shop.example`)
    // Worst first: the errors come before the DMARC warning.
    const items = await findings.allTextContents()
    const at = (code: string) => items.findIndex((text) => text.includes(code))
    expect(at('spf_loop')).toBeGreaterThanOrEqual(0)
    expect(at('spf_loop')).toBeLessThan(at('dmarc_policy_none'))
    expect(await findings.filter({ hasText: 'dmarc_policy_none' }).textContent()).toContain('Next: p=quarantine.')

    // A return path: set, waiting for its records, then in use once they are published and checked.
    await page.getByRole('textbox', { name: 'Return-path domain' }).fill('bounce.audited-shop.example')
    await page.getByRole('button', { name: 'Save return path' }).click()
    await page.getByText('Waiting for its records').waitFor()
    dns.set('bounce.audited-shop.example', 'TXT', ['v=spf1 ip4:127.0.0.1 -all'])
    dns.set('bounce.audited-shop.example', 'MX', [{ exchange: 'mx.audited-shop.example', priority: 10 }])
    await page.getByRole('button', { name: 'Check DNS now' }).click()
    await page.getByText('In use', { exact: true }).waitFor()
    await findings.filter({ hasText: 'return_path_ok' }).waitFor()

    // A return path outside the domain is refused at the field.
    await page.getByRole('textbox', { name: 'Return-path domain' }).fill('bounce.elsewhere.example')
    await page.getByRole('button', { name: 'Save return path' }).click()
    await page.getByText('Must be a subdomain of audited-shop.example, such as bounce.audited-shop.example').waitFor()

    const audit = accessibilityAudit(page)
    await audit.check('domain audit')
    audit.expectClean()
  })
})
