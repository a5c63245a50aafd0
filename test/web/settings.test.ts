import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { domains, projects } from '../../src/db/schema/index.js'
import type { ProjectView } from '../../src/modules/projects/schemas.js'
import { createAccount, uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { addDomain, appUrl, browserSession, sendEmail } from './flows.js'
import { addSession, openNewProject, rememberProject } from './sign-in.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const timeout = 240_000
const name = chromiumPath ? 'setup and settings in chromium' : 'setup and settings in chromium (skipped: no chromium)'

/** The signed-in user's project of that name, as the API lists it (keys included). */
async function projectNamed(page: Page, projectName: string): Promise<ProjectView> {
  const list = (await page.evaluate(() => fetch('/users/@me/projects').then((r) => r.json()))) as ProjectView[]
  const project = list.find((p) => p.name === projectName)
  if (!project) throw new Error(`no project ${projectName}`)
  return project
}

/** Whether a checklist step shows as done (its list item's data-done, next to the Done/To do badge). */
async function stepDone(page: Page, title: string): Promise<boolean> {
  const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) })
  const done = (await item.getAttribute('data-done')) === 'true'
  const badge = (await item.getByText(/^(Done|To do)$/).textContent()) ?? ''
  if (done !== (badge === 'Done')) throw new Error(`step "${title}" is ${done} but its badge says ${badge}`)
  return done
}

suite(name, { timeout }, () => {
  const session = browserSession()

  it('lands a new project on the checklist, whose steps tick as the domain, a send and an event arrive', async () => {
    const { page, server } = session
    await openNewProject(page, server.url, uniqueEmail(), 'Onboard')
    const project = await projectNamed(page, 'Onboard')
    await page.goto(appUrl(server.url, '/'))
    await page.waitForURL('**/app/setup')
    await page.getByRole('heading', { name: 'Set up Onboard' }).waitFor()
    expect(await page.getByTestId('setup-progress').textContent()).toBe('0 of 4 steps done')

    await page.getByRole('textbox', { name: 'Domain', exact: true }).fill('onboard.example')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await expect.poll(() => stepDone(page, '1. Add a sender domain'), { timeout: 15_000 }).toBe(true)
    // Step 2 lists the records to publish, each value with its copy button, and their live status.
    const records = page.getByRole('table', { name: 'DNS records for onboard.example' })
    await records.waitFor()
    expect(await records.getByRole('button', { name: /^Copy .* record value$/ }).count()).toBeGreaterThan(1)
    expect(await stepDone(page, '2. Verify the domain')).toBe(false)

    // The send snippet copies with the full secret key, ready to paste.
    await page.getByRole('button', { name: 'Copy send command' }).click()
    const command = String(await page.evaluate('navigator.clipboard.readText()'))
    expect(command).toContain(`authorization: Bearer ${project.secret}`)
    expect(command).toContain('"from":"hello@onboard.example"')
    expect(command).toContain(`${server.url}/v1/send`)
    expect(await page.getByText(project.secret).count()).toBe(0)
    // The track snippet uses the public key, which is safe to show.
    await page.getByText(`authorization: Bearer ${project.public}`).waitFor()

    const sent = await sendEmail(server.url, project.secret, {
      from: 'hello@onboard.example',
      to: 'first@example.net',
      subject: 'First',
      body: '<p>First</p>',
    })
    expect(sent.status).toBe(200)
    await expect.poll(() => stepDone(page, '3. Send a first email'), { timeout: 30_000 }).toBe(true)

    const tracked = await fetch(`${server.url}/v1/track`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.public}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'signed-up', email: 'first@example.net' }),
    })
    expect(tracked.status).toBe(200)
    await expect.poll(() => stepDone(page, '4. Track a first event'), { timeout: 15_000 }).toBe(true)
    expect(await page.getByTestId('setup-progress').textContent()).toBe('3 of 4 steps done')

    // DNS is not reachable from a test; the domain is marked verified as the checker would.
    await server.ctx.db.update(domains).set({ status: 'VERIFIED' }).where(eq(domains.projectId, project.id))
    await expect.poll(() => stepDone(page, '2. Verify the domain'), { timeout: 15_000 }).toBe(true)
    await page.getByText('Your project is ready').waitFor()

    // A project that finished setup opens on its keys.
    await page.goto(appUrl(server.url, '/'))
    await page.waitForURL('**/app/keys')
  })

  it('renames the project and sets tracking; reset and delete need the typed name', async () => {
    const { page, server } = session
    await openNewProject(page, server.url, uniqueEmail(), 'Settings shop')
    const project = await projectNamed(page, 'Settings shop')
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.waitForURL('**/app/settings/project')
    await page.getByRole('textbox', { name: 'Project name' }).fill('Renamed shop')
    await page.getByRole('radio', { name: 'Marketing only' }).check()
    // Short emails go without the open pixel, and the page says so.
    await page.getByText(/^Opens are counted only in emails whose HTML is longer than 3,200 characters/).waitFor()
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Project settings saved.').waitFor()
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Project' }).inputValue(), { timeout: 10_000 })
      .toBe('Renamed shop')
    expect(await projectNamed(page, 'Renamed shop')).toMatchObject({ id: project.id, tracking: 'MARKETING_ONLY' })

    const contact = await fetch(`${server.url}/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'kept-not@example.net', subscribed: true }),
    })
    expect(contact.status).toBe(201)
    const contactCount = async () => {
      const response = await fetch(`${server.url}/contacts`, { headers: { authorization: `Bearer ${project.secret}` } })
      return ((await response.json()) as { total: number }).total
    }
    expect(await contactCount()).toBe(1)

    await page.getByRole('button', { name: 'Reset project…' }).click()
    const reset = page.getByRole('dialog', { name: 'Reset Renamed shop?' })
    const confirmReset = reset.getByRole('button', { name: 'Reset project' })
    await reset.getByRole('textbox', { name: 'Type Renamed shop to confirm' }).fill('Settings shop')
    expect(await confirmReset.isDisabled()).toBe(true)
    await reset.getByRole('textbox', { name: 'Type Renamed shop to confirm' }).fill('Renamed shop')
    await confirmReset.click()
    await page.getByText('Project reset', { exact: true }).waitFor()
    expect(await contactCount()).toBe(0)

    await page.getByRole('button', { name: 'Delete project…' }).click()
    const remove = page.getByRole('dialog', { name: 'Delete Renamed shop?' })
    await remove.getByRole('textbox', { name: 'Type Renamed shop to confirm' }).fill('Renamed shop')
    await remove.getByRole('button', { name: 'Delete project' }).click()
    // It was the user's only project.
    await page.waitForURL('**/app/projects/new')
    const old = await fetch(`${server.url}/contacts`, { headers: { authorization: `Bearer ${project.secret}` } })
    expect(old.status).toBe(401)
  })

  it('manages the team: roles, the last-owner refusal, what a member may not do, removal', async () => {
    const { page, server, browser } = session
    const owner = uniqueEmail('owner')
    await openNewProject(page, server.url, owner, 'Crew')
    const crew = await projectNamed(page, 'Crew')
    const mate = await createAccount(server, 'Mate own project')
    await page.goto(appUrl(server.url, '/settings/team'))
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(mate.email)
    await page.getByRole('button', { name: 'Invite' }).click()
    await page.getByText(`${mate.email} already had an account and is now a member.`).waitFor()
    const members = page.getByRole('table', { name: 'Members of Crew' })
    await members.getByText(mate.email).waitFor()

    const roleOf = (email: string) => page.getByRole('combobox', { name: `Role of ${email}` })
    await roleOf(mate.email).click()
    await page.getByRole('option', { name: 'Admin' }).click()
    await expect.poll(() => roleOf(mate.email).inputValue(), { timeout: 10_000 }).toBe('Admin')

    // The only owner cannot step down: the API's refusal shows at the row.
    await roleOf(owner).click()
    await page.getByRole('option', { name: 'Member' }).click()
    await members.getByRole('alert').filter({ hasText: 'A project needs at least one owner' }).waitFor()
    expect(await roleOf(owner).inputValue()).toBe('Owner')

    // As an admin, the teammate may invite but not touch the owner or the danger zone.
    const mateContext = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const matePage = await mateContext.newPage()
    try {
      await addSession(mateContext, server.url, mate.cookie)
      await rememberProject(mateContext, server.url, crew.id)
      await matePage.goto(appUrl(server.url, '/settings/team'))
      await matePage.getByRole('heading', { name: 'Invite someone' }).waitFor()
      await matePage.getByRole('table', { name: 'Members of Crew' }).getByText(owner).waitFor()
      expect(await matePage.getByRole('combobox', { name: `Role of ${owner}` }).count()).toBe(0)
      expect(await matePage.getByRole('button', { name: `Remove ${owner}` }).count()).toBe(0)
      await matePage.getByRole('link', { name: 'Project', exact: true }).click()
      expect(await matePage.getByRole('button', { name: 'Delete project…' }).isDisabled()).toBe(true)
      expect(await matePage.getByRole('button', { name: 'Reset project…' }).isDisabled()).toBe(true)
      await matePage.getByText('Only an owner of the project can reset or delete it.').waitFor()

      // Back to member: no invite form, no role changes, settings read-only.
      await roleOf(mate.email).click()
      await page.getByRole('option', { name: 'Member' }).click()
      await expect.poll(() => roleOf(mate.email).inputValue(), { timeout: 10_000 }).toBe('Member')
      await matePage.reload()
      await matePage.getByText('Only admins and owners can change these settings.').waitFor()
      expect(await matePage.getByRole('textbox', { name: 'Project name' }).isDisabled()).toBe(true)
      await matePage.getByRole('link', { name: 'Team', exact: true }).click()
      await matePage.getByRole('button', { name: 'Leave Crew' }).waitFor()
      expect(await matePage.getByRole('heading', { name: 'Invite someone' }).count()).toBe(0)
      expect(await matePage.getByRole('combobox', { name: /^Role of / }).count()).toBe(0)

      // Removal ends the teammate's sessions at once.
      page.once('dialog', (dialog) => dialog.accept())
      await page.getByRole('button', { name: `Remove ${mate.email}` }).click()
      await expect.poll(() => members.getByText(mate.email).count(), { timeout: 10_000 }).toBe(0)
      await matePage.reload()
      await matePage.waitForURL('**/app/login**')
    } finally {
      await mateContext.close()
    }
  })

  it('shows caps and this month’s consumption, and the security state with resume', async () => {
    const { page, server } = session
    await openNewProject(page, server.url, uniqueEmail(), 'Capped')
    const project = await projectNamed(page, 'Capped')
    await addDomain(page, 'capped.example')
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('link', { name: 'Billing' }).click()
    await page.getByText('Payments are not enabled on this server. Caps work without them.').waitFor()
    expect(await page.getByRole('button', { name: 'Subscribe' }).count()).toBe(0)

    const usage = page.getByRole('table', { name: 'Consumption by category' })
    const row = (category: string) =>
      usage.getByRole('row').filter({ has: page.getByRole('rowheader', { name: category }) })
    await expect.poll(async () => row('Transactional').textContent(), { timeout: 10_000 }).toContain('No cap')
    await page.getByRole('textbox', { name: 'Transactional cap' }).fill('1')
    await page.getByRole('button', { name: 'Save caps' }).click()
    await page.getByText('Monthly caps saved.').waitFor()
    await expect.poll(async () => row('Transactional').textContent(), { timeout: 10_000 }).toBe('Transactional010%')

    const mail = { from: 'hi@capped.example', to: 'one@example.net', subject: 'One', body: '<p>One</p>' }
    expect((await sendEmail(server.url, project.secret, mail)).status).toBe(200)
    const refused = await sendEmail(server.url, project.secret, { ...mail, subject: 'Two' })
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('BILLING_LIMIT_EXCEEDED')
    await page.reload()
    await expect
      .poll(async () => row('Transactional').textContent(), { timeout: 10_000 })
      .toBe('Transactional11100%Cap reached')
    await page.getByText(/^Period .*: 1 emails in all\.$/).waitFor()

    await page.getByRole('link', { name: 'Security' }).click()
    await page.getByRole('status').filter({ hasText: 'Sending is active' }).waitFor()
    await page.getByRole('table', { name: 'Bounce and complaint rates' }).waitFor()
    await page.getByText('Never paused').waitFor()
    await server.ctx.db
      .update(projects)
      .set({ sendingPausedReason: 'The 7-day bounce rate reached 9%.' })
      .where(eq(projects.id, project.id))
    await page.reload()
    await page.getByRole('status').filter({ hasText: 'The 7-day bounce rate reached 9%.' }).waitFor()
    await page.getByRole('button', { name: 'Resume sending' }).click()
    await page.getByRole('status').filter({ hasText: 'Sending is active' }).waitFor()
    const [row2] = await server.ctx.db
      .select({ paused: projects.sendingPausedReason })
      .from(projects)
      .where(eq(projects.id, project.id))
    expect(row2?.paused).toBeNull()

    // A pause of the marketing stream alone says what still goes out, and shows each stream's state.
    await server.ctx.db
      .update(projects)
      .set({ marketingPausedReason: 'The 7-day marketing bounce rate reached 9%.' })
      .where(eq(projects.id, project.id))
    await page.reload()
    const marketing = page.getByRole('status').filter({ hasText: 'Marketing sending is paused' })
    await marketing.waitFor()
    expect(await marketing.textContent()).toContain(
      'The 7-day marketing bounce rate reached 9%. Campaigns cannot start, and marketing emails queued meanwhile are held until sending resumes. Transactional mail (password resets, receipts, SMTP relay) still goes out.',
    )
    const streams = page.getByRole('table', { name: 'Rates by stream' })
    const stream = (name: string) =>
      streams.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) })
    expect(
      await stream('Marketing')
        .getByText(/^(Active|Paused)$/)
        .textContent(),
    ).toBe('Paused')
    expect(
      await stream('Transactional')
        .getByText(/^(Active|Paused)$/)
        .textContent(),
    ).toBe('Active')
    await page.getByRole('button', { name: 'Resume sending' }).click()
    await page.getByRole('status').filter({ hasText: 'Sending is active' }).waitFor()
    expect(
      await stream('Marketing')
        .getByText(/^(Active|Paused)$/)
        .textContent(),
    ).toBe('Active')
    const [row3] = await server.ctx.db
      .select({ paused: projects.marketingPausedReason })
      .from(projects)
      .where(eq(projects.id, project.id))
    expect(row3?.paused).toBeNull()
  })

  it('every setup and settings page passes an axe check with no serious or critical violation', async () => {
    const { page, server } = session
    const audit = accessibilityAudit(page)
    await openNewProject(page, server.url, uniqueEmail(), 'Audit settings')
    await page.goto(appUrl(server.url, '/setup'))
    await page.getByRole('textbox', { name: 'Domain', exact: true }).fill('audit-settings.example')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await page.getByRole('table', { name: 'DNS records for audit-settings.example' }).waitFor()
    await audit.check('setup checklist with a domain')
    await page.goto(appUrl(server.url, '/settings/project'))
    await page.getByRole('button', { name: 'Save settings' }).waitFor()
    await audit.check('project settings')
    await page.getByRole('button', { name: 'Delete project…' }).click()
    await page.getByRole('dialog').waitFor()
    await audit.check('delete dialog')
    await page.keyboard.press('Escape')
    await page.getByRole('link', { name: 'Team' }).click()
    await page.getByRole('table', { name: 'Members of Audit settings' }).waitFor()
    await audit.check('team')
    await page.getByRole('link', { name: 'Billing' }).click()
    await page.getByRole('table', { name: 'Consumption by category' }).waitFor()
    await audit.check('billing')
    await page.getByRole('link', { name: 'Security' }).click()
    await page.getByRole('table', { name: 'Bounce and complaint rates' }).waitFor()
    await audit.check('security')
    audit.expectClean()
  })
})
