import { mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import { publishAllRecords, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { uniqueEmail } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { appUrl, browserSession, callApi, fetchApi } from './flows.js'
import { openNewProject } from './sign-in.js'

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath ? 'emails and their timeline in chromium' : 'emails in chromium (skipped: no chromium)'

const domain = 'timeline-web.example'
const from = `hello@${domain}`

type Entry = { kind: string; at: string; detail: Record<string, unknown> }
type Email = { id: string; status: string; subject: string; history: Entry[] }
type Recipient = { emailId: string; email: string; status: string; failureReason: string | null }

/** Waits until the API answers `url` with something `done` accepts (the outbox works a moment after the 200). */
async function waitForApi<T>(base: string, key: string, url: string, done: (body: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const { status, body } = await fetchApi<T>(base, key, 'GET', url)
    if (status === 200 && done(body)) return body
    if (Date.now() > deadline) throw new Error(`GET ${url} never settled: ${status} ${JSON.stringify(body)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The timeline's entries as the page lists them: each item's title. */
const timelineKinds = (page: Page) =>
  page.getByRole('list', { name: 'Timeline' }).getByTestId('timeline-kind').allInnerTexts()
const timelineItem = (page: Page, title: string) =>
  page
    .getByRole('list', { name: 'Timeline' })
    .getByRole('listitem')
    .filter({ has: page.getByTestId('timeline-kind').getByText(title, { exact: true }) })

suite(name, { timeout: 240_000 }, () => {
  const session = browserSession()
  let sink: SmtpSink
  let env: ServerWithDns
  /** How often the sink saw each recipient at RCPT TO, and MAIL FROM at all. */
  const tries = new Map<string, number>()
  let mailFroms = 0
  /** While set, the next MAIL FROM is refused for good (the message's, not the address's fault: no bounce). */
  let refuseNextSender = false

  beforeAll(async () => {
    sink = await startSmtpSink({
      failWith: (rcpt) => {
        const seen = (tries.get(rcpt) ?? 0) + 1
        tries.set(rcpt, seen)
        if (rcpt.startsWith('later') && seen === 1) return { code: 451, message: 'Greylisted, try again later' }
        return undefined
      },
      failMailFromWith: () => {
        mailFroms++
        if (!refuseNextSender) return undefined
        refuseNextSender = false
        return { code: 550, message: 'Sender refused by policy' }
      },
    })
    // Its own server, delivering over SMTP to the sink: the web tier's shared one captures mail instead, which
    // tells no SMTP reply.
    env = await startServerWithDns({ config: { smtpUrl: sink.url } })
  })
  afterAll(async () => {
    await env?.close()
    await sink?.close()
  })

  /** A new account and project on this server, signed in, with a verified sending domain: its secret key. */
  async function project(projectName: string): Promise<string> {
    await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url })
    const { project } = await openNewProject(session.page, env.server.url, uniqueEmail(), projectName)
    const key = project.secret
    const added = await callApi<DomainView>(env.server.url, key, 'POST', '/domains', { domain })
    publishAllRecords(env.dns, added)
    const checked = await callApi<DomainView>(env.server.url, key, 'GET', `/domains/${added.id}/verify`)
    expect(checked.status).toBe('VERIFIED')
    return key
  }

  it('finds a sent email in the list, tells its story (deferred 451, then sent with the reply), and opens a pasted id', async () => {
    const { page } = session
    const key = await project('Timeline')
    const audit = accessibilityAudit(page)
    const to = uniqueEmail('later')
    const sent = await callApi<{ data: { emails: { email: string }[] } }>(env.server.url, key, 'POST', '/v1/send', {
      from,
      to,
      subject: 'Your reset link',
      body: '<p>Reset it here</p>',
    })
    const id = sent.data.emails[0]?.email ?? ''
    await waitForApi<Email>(env.server.url, key, `/emails/${id}`, (body) =>
      body.history.some((entry) => entry.kind === 'deferred'),
    )

    // The list, from the navigation: the email waits in the outbox for its next attempt.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Emails', exact: true }).click()
    await page.getByRole('heading', { name: 'Emails', level: 1, exact: true }).waitFor()
    const table = page.getByRole('table', { name: 'Emails', exact: true })
    const row = table.getByRole('row').filter({ hasText: to })
    await row.waitFor()
    expect(await row.innerText()).toMatch(/Your reset link\s+\S+\s+QUEUED\s+Transactional/)
    await expect.poll(() => page.getByTestId('email-total').innerText()).toBe('1 email')
    await audit.check('emails list')

    await row.getByRole('link', { name: 'Your reset link' }).click()
    await page.waitForURL(`**/app/emails/${id}`)
    await page.getByRole('heading', { name: 'Your reset link', level: 1 }).waitFor()
    expect(await page.getByTestId('email-id').innerText()).toBe(id)
    await expect.poll(() => timelineKinds(page)).toEqual(['Accepted', 'Deferred'])
    const deferred = await timelineItem(page, 'Deferred').innerText()
    expect(deferred).toMatch(/SMTP code\s*451/)
    expect(deferred).toContain('Greylisted, try again later')
    expect(deferred).toContain('Next attempt')
    expect(await page.getByTestId('email-status').innerText()).toBe('QUEUED')
    // Relative times, the exact time on hover.
    const accepted = timelineItem(page, 'Accepted').locator('time')
    const at = (await accepted.getAttribute('datetime')) ?? ''
    expect(await accepted.getAttribute('title')).toBe(
      await page.evaluate(`new Date(${JSON.stringify(at)}).toLocaleString()`),
    )
    await audit.check('email, deferred')

    // Due now instead of after its backoff: the page, asking again while the email is in the outbox, shows it sent.
    await env.server.ctx.db.execute(sql`UPDATE emails SET next_attempt_at = now() WHERE id = ${id}`)
    env.server.outbox?.wake()
    await expect.poll(() => timelineKinds(page), { timeout: 30_000 }).toEqual(['Accepted', 'Deferred', 'Sent'])
    const handedOver = await timelineItem(page, 'Sent').innerText()
    expect(handedOver).toMatch(/Server reply\s*250 /)
    expect(handedOver).toMatch(/Attempt\s*2/)
    expect(await page.getByTestId('email-status').innerText()).toBe('SENT')
    expect((await callApi<Email>(env.server.url, key, 'GET', `/emails/${id}`)).history.map((e) => e.kind)).toEqual([
      'accepted',
      'deferred',
      'sent',
    ])
    // The contact's page links here too.
    await page.getByRole('link', { name: to }).click()
    await page.getByRole('heading', { name: to, level: 1 }).waitFor()
    const contactEmails = page.getByRole('table', { name: 'Emails to this contact' })
    await contactEmails.getByRole('link', { name: 'Your reset link' }).click()
    await page.waitForURL(`**/app/emails/${id}`)

    // The copy button copies the id; pasted into the list's search box, it opens the email at once.
    await page.getByRole('button', { name: 'Copy email id' }).click()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(id)
    await page.getByRole('link', { name: 'All emails' }).click()
    await page.getByRole('heading', { name: 'Emails', level: 1, exact: true }).waitFor()
    await page.getByRole('searchbox', { name: 'Recipient or email id' }).focus()
    await page.keyboard.press('ControlOrMeta+V')
    await page.waitForURL(`**/app/emails/${id}`)
    await page.getByRole('heading', { name: 'Your reset link', level: 1 }).waitFor()

    // Another id, or none at all: a clear not-found state, the page's one h1.
    await page.goto(appUrl(env.server.url, '/emails/00000000-0000-4000-8000-000000000000'))
    await page.getByTestId('not-found').waitFor()
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Not found')
    await audit.check('email, not found')
    await page.goto(appUrl(env.server.url, '/emails/not-an-id'))
    expect(await page.getByTestId('not-found').innerText()).toContain('“not-an-id” is not an email id')

    // The list filtered by recipient (typed and submitted) and by status.
    await page.goto(appUrl(env.server.url, '/emails'))
    await page.getByRole('searchbox', { name: 'Recipient or email id' }).fill('nobody@example.net')
    await page.keyboard.press('Enter')
    await page.getByText('No emails match').waitFor()
    await page.getByRole('searchbox', { name: 'Recipient or email id' }).fill(to.toUpperCase())
    await page.keyboard.press('Enter')
    await table.getByRole('link', { name: 'Your reset link' }).waitFor()
    await page.getByRole('combobox', { name: 'Status' }).click()
    await page.getByRole('option', { name: 'FAILED' }).click()
    await page.keyboard.press('Escape')
    await page.getByText('No emails match').waitFor()
    audit.expectClean()
  })

  it('lists a campaign’s recipients by state with the failure reason, each opening its email, and downloads the CSV', async () => {
    const { page } = session
    const key = await project('Recipients')
    const audit = accessibilityAudit(page)
    const people = ['ann', 'bob', 'cy'].map((who) => `${who}-${Date.now()}@people.example`)
    for (const email of people) await callApi(env.server.url, key, 'POST', '/contacts', { email, subscribed: true })
    const campaign = await callApi<{ data: { id: string } }>(env.server.url, key, 'POST', '/campaigns', {
      name: 'Autumn news',
      subject: 'Autumn is here',
      body: '<p>News</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
      from,
      audienceType: 'ALL',
    })
    const campaignId = campaign.data.id
    // One of the three messages is refused at MAIL FROM with a 550: given up on, with the server's reply as reason.
    const before = mailFroms
    refuseNextSender = true
    await callApi(env.server.url, key, 'POST', `/campaigns/${campaignId}/send`, {})
    const all = await waitForApi<{ data: Recipient[] }>(
      env.server.url,
      key,
      `/campaigns/${campaignId}/recipients`,
      (body) => body.data.length === 3 && body.data.every((r) => r.status === 'SENT' || r.status === 'FAILED'),
    )
    expect(mailFroms - before).toBe(3)
    const failed = all.data.filter((recipient) => recipient.status === 'FAILED')
    expect(failed).toHaveLength(1)
    const [refused] = failed
    if (!refused) throw new Error('no failed recipient')
    expect(refused.failureReason).toContain('550')

    await page.goto(appUrl(env.server.url, `/campaigns/${campaignId}`))
    await page.getByRole('heading', { name: 'Autumn news', level: 1 }).waitFor()
    const table = page.getByRole('table', { name: 'Recipients' })
    const addresses = async () => (await table.getByRole('link').allInnerTexts()).sort()
    await expect.poll(addresses).toEqual([...people].sort())
    await audit.check('campaign recipients')

    const chooseState = async (state: string) => {
      await page.getByRole('combobox', { name: 'State' }).click()
      await page.getByRole('option', { name: state, exact: true }).click()
    }
    await chooseState('Failed')
    await expect.poll(addresses).toEqual([refused.email])
    const failedRow = table.getByRole('row').filter({ hasText: refused.email })
    expect(await failedRow.innerText()).toContain(refused.failureReason ?? '')
    expect(await failedRow.innerText()).toContain('FAILED')
    await chooseState('Sent')
    await expect.poll(addresses).toEqual(people.filter((email) => email !== refused.email).sort())
    await chooseState('Bounced')
    await page.getByText('No recipients bounced').waitFor()
    await audit.check('campaign recipients, none in the state')

    // The CSV of a state: fetched with the project header and saved.
    await chooseState('Failed')
    await expect.poll(addresses).toEqual([refused.email])
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Download CSV' }).click()
    const file = await download
    expect(file.suggestedFilename()).toBe(`campaign-${campaignId}-failed-recipients.csv`)
    // The browser runs in another process (the web tier's shared one): the file is copied here to be read.
    const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-csv-'))
    const saved = path.join(dir, file.suggestedFilename())
    await file.saveAs(saved)
    const csv = await readFile(saved, 'utf8')
    rmSync(dir, { recursive: true, force: true })
    const lines = csv.split('\r\n').filter((line) => line !== '')
    expect(lines[0]).toBe(
      'email_id,contact_id,email,status,sent_at,delivered_at,opened_at,clicked_at,bounced_at,complained_at,failed_at,failure_reason',
    )
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain(`${refused.emailId},`)

    // The row opens the email's story: accepted, then failed with the server's reply.
    await table.getByRole('link', { name: refused.email }).click()
    await page.waitForURL(`**/app/emails/${refused.emailId}`)
    await expect.poll(() => timelineKinds(page)).toEqual(['Accepted', 'Failed'])
    expect(await timelineItem(page, 'Failed').innerText()).toMatch(/SMTP code\s*550/)
    expect(await page.getByRole('link', { name: 'The campaign “Autumn news”' }).getAttribute('href')).toBe(
      `/app/campaigns/${campaignId}`,
    )
    await audit.check('campaign email, failed')
    audit.expectClean()
  })

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`the emails list and an email's page pass an axe check in the ${colorScheme} colour scheme`, async () => {
      const { page } = session
      await page.emulateMedia({ colorScheme })
      const key = await project(`Audit ${colorScheme}`)
      const audit = accessibilityAudit(page)
      const sent = await callApi<{ data: { emails: { email: string }[] } }>(env.server.url, key, 'POST', '/v1/send', {
        from,
        to: uniqueEmail('audit'),
        subject: 'Checked by axe',
        body: '<p>hi</p>',
      })
      const id = sent.data.emails[0]?.email ?? ''
      await waitForApi<Email>(env.server.url, key, `/emails/${id}`, (body) => body.status === 'SENT')
      await page.goto(appUrl(env.server.url, '/emails'))
      expect(await page.locator('html').getAttribute('data-mantine-color-scheme')).toBe(colorScheme)
      await page
        .getByRole('table', { name: 'Emails', exact: true })
        .getByRole('link', { name: 'Checked by axe' })
        .click()
      await expect.poll(() => timelineKinds(page)).toEqual(['Accepted', 'Sent'])
      await audit.check(`email (${colorScheme})`)
      await page.getByRole('link', { name: 'All emails' }).click()
      await page.getByRole('table', { name: 'Emails', exact: true }).waitFor()
      await audit.check(`emails (${colorScheme})`)
      audit.expectClean()
    })
  }
})
