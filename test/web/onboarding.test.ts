import { execFileSync } from 'node:child_process'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { appUrl, browserSession, callApi, createProject, openMailedLink, signUp } from './flows.js'
import { addSession, createProjectByApi, openNewProject, rememberProject, signUpByApi } from './sign-in.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const timeout = 240_000
const name = chromiumPath ? 'onboarding in chromium' : 'onboarding in chromium (skipped: no chromium)'

const stepTitles = [
  '1. Add a sender domain',
  '2. Verify the domain',
  '3. Send a first email',
  '4. Track a first event',
] as const

/**
 * The checklist as the page shows it: the progress line and, per step, whether it is done (its data-done, which must
 * agree with its Done / To do badge).
 */
async function checklist(page: Page): Promise<{ progress: string; done: boolean[] }> {
  const done: boolean[] = []
  for (const title of stepTitles) {
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) })
    const flag = (await item.getAttribute('data-done')) === 'true'
    const badge = (await item.getByText(/^(Done|To do)$/).textContent()) ?? ''
    if (flag !== (badge === 'Done')) throw new Error(`step "${title}" is ${flag} but its badge says ${badge}`)
    done.push(flag)
  }
  return { progress: (await page.getByTestId('setup-progress').textContent()) ?? '', done }
}

/** Waits until the checklist shows exactly this state (it polls the server every few seconds). */
async function expectChecklist(page: Page, done: boolean[]): Promise<void> {
  const count = done.filter(Boolean).length
  await expect
    .poll(() => checklist(page), { timeout: 30_000, interval: 250 })
    .toEqual({ progress: `${count} of 4 steps done`, done })
}

/** What a copy button put on the clipboard. */
async function copied(page: Page, label: string): Promise<string> {
  await page.getByRole('button', { name: `Copy ${label}` }).click()
  return String(await page.evaluate('navigator.clipboard.readText()'))
}

/** Runs a command copied from the dashboard as a user pastes it into a shell; its output. */
function runInShell(command: string): string {
  return execFileSync('sh', ['-c', command], { encoding: 'utf8', timeout: 30_000 })
}

suite(name, { timeout }, () => {
  const session = browserSession()

  it('goes from sign-up to a first captured email, the checklist exact after each step', async () => {
    const { page, server } = session
    const email = uniqueEmail('first')
    await signUp(page, server.url, email)
    // Capture mode, the default, says so on every page and how to leave it.
    const banner = page.getByRole('complementary', { name: 'Capture mode' })
    await banner.getByText('Capture mode: nothing leaves this machine.').waitFor()
    expect(await banner.textContent()).toContain('MAIL_TRANSPORT=smtp')

    await createProject(page, 'First steps')
    expect(page.url()).toBe(appUrl(server.url, '/setup'))
    await expectChecklist(page, [false, false, false, false])
    // No domain yet: no command the API would refuse, but what to do first.
    await page.getByText('The from address must use one of your domains: add one in step 1.').waitFor()
    expect(await page.getByRole('button', { name: 'Copy send command' }).count()).toBe(0)

    await page.getByRole('textbox', { name: 'Domain', exact: true }).fill('first-steps.example')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await expectChecklist(page, [true, false, false, false])

    // Capture mode accepts the unverified domain: the command is ready to run, from it, to the user's own address.
    const command = await copied(page, 'send command')
    expect(command).toContain(`${server.url}/v1/send`)
    expect(command).toMatch(/authorization: Bearer sk_[0-9a-f]{64}'/)
    expect(command).toContain(
      `-d '{"from":"hello@first-steps.example","to":"${email}","subject":"Hello from Mailroom","body":"<p>It works!</p>"}'`,
    )
    expect(await page.getByText(/sk_[0-9a-f]{64}/).count()).toBe(0)
    // The keys page offers the very same command.
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByRole('table', { name: 'Keys of First steps' }).waitFor()
    expect(await copied(page, 'send command')).toBe(command)
    await page.getByRole('link', { name: 'Get started' }).click()

    const answer = JSON.parse(runInShell(command)) as { success: boolean }
    expect(answer.success).toBe(true)
    // The send ticks step 3 only: its email.sent is no tracked event.
    await expectChecklist(page, [true, false, true, false])

    await page.getByRole('link', { name: 'Mailbox' }).click()
    await page.getByRole('link', { name: /Hello from Mailroom/ }).click()
    await page.getByRole('heading', { name: 'Hello from Mailroom' }).waitFor()
    expect(await page.getByRole('table', { name: 'Message headers' }).textContent()).toContain(email)
    const body = page.frameLocator('iframe[title^="Message:"]')
    await expect.poll(() => body.getByText('It works!').isVisible()).toBe(true)

    await page.getByRole('link', { name: 'Get started' }).click()
    const tracked = JSON.parse(runInShell(await copied(page, 'track command'))) as { success: boolean }
    expect(tracked.success).toBe(true)
    await expectChecklist(page, [true, false, true, true])
  })

  it('leads from the verification banner to the captured email, whose link verifies the address', async () => {
    const { page, server } = session
    const email = uniqueEmail('verify')
    await openNewProject(page, server.url, email, 'Verify me')
    await page.getByRole('link', { name: 'Get started' }).click()
    const banner = page.getByRole('alert').filter({ hasText: 'Verify your email address' })
    await banner.getByText('Send one and a link to it appears here.').waitFor()
    await banner.getByRole('button', { name: 'Send a verification email' }).click()
    await banner.getByRole('link', { name: 'Open the verification email' }).click()
    await page.waitForURL(/\/app\/mailbox\/account\/[0-9a-f-]{36}$/)
    await page.getByRole('heading', { name: 'Verify your email address' }).waitFor()
    expect(await page.getByRole('table', { name: 'Message headers' }).textContent()).toContain(email)
    const link = await page
      .frameLocator('iframe[title^="Message:"]')
      .getByRole('link', { name: 'Verify email' })
      .getAttribute('href')
    await openMailedLink(page, server.url, link ?? '')
    await page.getByText('Email verified successfully.').waitFor()
    await page.goto(appUrl(server.url, '/setup'))
    await page.getByRole('heading', { name: 'Set up Verify me' }).waitFor()
    await page.getByTestId('setup-progress').waitFor()
    expect(await page.getByRole('alert').filter({ hasText: 'Verify your email address' }).count()).toBe(0)
  })

  it('shows an invitation as pending on the team page and in the Mailbox; resend and revoke it', async () => {
    const { page, server, browser } = session
    const owner = uniqueEmail('owner')
    const { project } = await openNewProject(page, server.url, owner, 'Crew deck')
    const invitee = uniqueEmail('invitee')
    await page.goto(appUrl(server.url, '/settings/team'))
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(invitee)
    await page.getByRole('button', { name: 'Invite' }).click()
    await page.getByText(`An invitation was mailed to ${invitee}.`).waitFor()

    const pending = page.getByRole('table', { name: 'Pending invitations to Crew deck' })
    const row = pending.getByRole('row').filter({ hasText: invitee })
    await row.waitFor()
    const cells = await row.getByRole('cell').allTextContents()
    expect(cells[0]).toBe(invitee)
    expect(cells[1]).toBe('Member')
    expect(cells[2]).toMatch(/^by .+ on .+\d/)
    expect(cells[2]).toContain(`by ${owner} on `)
    expect(cells[3]).toMatch(/^Expires .+\d/)

    await page.getByRole('link', { name: 'Mailbox' }).click()
    const subject = 'You are invited to Crew deck on Mailroom'
    const message = page.getByRole('link', { name: new RegExp(subject) })
    await expect.poll(() => message.count(), { timeout: 30_000 }).toBe(1)
    expect(await message.textContent()).toContain(`Account email · To ${invitee}`)
    await message.click()
    await page.getByRole('heading', { name: subject }).waitFor()
    const preview = page.frameLocator('iframe[title^="Message:"]')
    await expect.poll(() => preview.getByRole('link', { name: 'Accept the invitation' }).isVisible()).toBe(true)

    // A member of the project sees neither the invitations nor their emails, whose links would join.
    const memberEmail = uniqueEmail('member')
    const memberCookie = await signUpByApi(server.url, memberEmail)
    await callApi(server.url, project.secret, 'POST', `/projects/${project.id}/members`, { email: memberEmail })
    const memberContext = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    try {
      await addSession(memberContext, server.url, memberCookie)
      await rememberProject(memberContext, server.url, project.id)
      const memberPage = await memberContext.newPage()
      await memberPage.goto(appUrl(server.url, '/settings/team'))
      await memberPage.getByRole('table', { name: 'Members of Crew deck' }).getByText(owner).waitFor()
      expect(await memberPage.getByRole('heading', { name: 'Pending invitations' }).count()).toBe(0)
      await memberPage.goto(appUrl(server.url, '/mailbox'))
      await memberPage.getByText('No captured messages').waitFor()
    } finally {
      await memberContext.close()
    }

    await page.goto(appUrl(server.url, '/settings/team'))
    await row.getByRole('button', { name: `Resend the invitation to ${invitee}` }).click()
    await page.getByText(`A new link was mailed to ${invitee}; the earlier one no longer works.`).waitFor()
    await page.getByRole('link', { name: 'Mailbox' }).click()
    await expect.poll(() => page.getByRole('link', { name: new RegExp(subject) }).count(), { timeout: 30_000 }).toBe(2)

    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('link', { name: 'Team', exact: true }).click()
    await row.getByRole('button', { name: `Revoke the invitation to ${invitee}` }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click()
    await page.getByText('No pending invitations').waitFor()
    expect(await pending.count()).toBe(0)
  })

  it("opens a deep link to another project's page as not found, inside the app", async () => {
    const { page, server } = session
    const strangerCookie = await signUpByApi(server.url, uniqueEmail('stranger'))
    const theirs = await createProjectByApi(server.url, strangerCookie, 'Not yours')
    await callApi(server.url, theirs.secret, 'POST', '/domains', { domain: 'hidden.example' })
    const contact = await callApi<{ id: string }>(server.url, theirs.secret, 'POST', '/contacts', {
      email: uniqueEmail('secret'),
    })
    const workflow = await callApi<{ id: string }>(server.url, theirs.secret, 'POST', '/workflows', {
      name: 'Hidden',
      eventName: 'signup',
    })
    const campaign = await callApi<{ data: { id: string } }>(server.url, theirs.secret, 'POST', '/campaigns', {
      name: 'Hidden news',
      subject: 'Hi',
      body: '<p>Hi</p>',
      from: 'news@hidden.example',
      audienceType: 'ALL',
    })
    const template = await callApi<{ id: string }>(server.url, theirs.secret, 'POST', '/templates', {
      name: 'Hidden receipt',
      subject: 'Receipt',
      body: '<p>Thanks</p>',
      from: 'billing@hidden.example',
    })
    const segment = await callApi<{ id: string }>(server.url, theirs.secret, 'POST', '/segments', {
      name: 'Hidden list',
      type: 'STATIC',
    })
    await openNewProject(page, server.url, uniqueEmail('visitor'), 'Mine')
    const audit = accessibilityAudit(page)
    for (const [path, message] of [
      [`/contacts/${contact.id}`, 'Contact not found'],
      [`/workflows/${workflow.id}`, 'Workflow not found'],
      [`/campaigns/${campaign.data.id}`, 'Campaign not found'],
      [`/campaigns/${campaign.data.id}/edit`, 'Campaign not found'],
      [`/templates/${template.id}`, 'Template not found'],
      [`/segments/${segment.id}`, 'Segment not found'],
      [`/segments/${segment.id}/edit`, 'Segment not found'],
      [`/workflows/${workflow.id}/executions`, 'Workflow not found'],
    ] as const) {
      await page.goto(appUrl(server.url, path))
      const notFound = page.getByTestId('not-found')
      await notFound.waitFor()
      expect(await notFound.getByRole('heading').textContent()).toBe('Not found')
      expect(await notFound.textContent()).toContain(message)
      // The app around it: its navigation and the project switcher, not an empty page.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).waitFor()
      expect(await page.getByRole('combobox', { name: 'Project' }).inputValue()).toBe('Mine')
      expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0)
      await audit.check(path)
    }
    audit.expectClean()
  })

  it('shows a campaign and the analytics of captured mail as captured, not as delivered 0', async () => {
    const { page, server } = session
    const { project } = await openNewProject(page, server.url, uniqueEmail('news'), 'Newsroom')
    await callApi(server.url, project.secret, 'POST', '/domains', { domain: 'newsroom.example' })
    for (const reader of ['ada', 'grace', 'alan']) {
      await callApi(server.url, project.secret, 'POST', '/contacts', { email: `${reader}@readers.example` })
    }
    const campaign = await callApi<{ data: { id: string } }>(server.url, project.secret, 'POST', '/campaigns', {
      name: 'Launch',
      subject: 'We launched',
      body: '<p>News</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
      from: 'news@newsroom.example',
      audienceType: 'ALL',
    })
    await callApi(server.url, project.secret, 'POST', `/campaigns/${campaign.data.id}/send`, {})
    await expect
      .poll(
        async () =>
          (
            await callApi<{ data: { status: string } }>(
              server.url,
              project.secret,
              'GET',
              `/campaigns/${campaign.data.id}`,
            )
          ).data.status,
        { timeout: 60_000 },
      )
      .toBe('SENT')

    await page.goto(appUrl(server.url, `/campaigns/${campaign.data.id}`))
    await page.getByTestId('stat-capturedCount').waitFor()
    expect(await page.getByTestId('stat-capturedCount').textContent()).toBe('Captured3')
    expect(await page.getByTestId('stat-sentCount').textContent()).toBe('Sent3')
    expect(await page.getByTestId('stat-deliveredCount').count()).toBe(0)
    expect(await page.getByTestId('captured-note').textContent()).toContain('3 of these emails were captured')
    const audit = accessibilityAudit(page)
    await audit.check('campaign with captured mail')

    await page.getByRole('link', { name: 'Analytics' }).click()
    const totals = page.getByRole('list', { name: 'Email totals' })
    await totals.waitFor()
    const figures = await totals.getByRole('listitem').allTextContents()
    expect(figures).toContain('Captured3')
    expect(figures).toContain('Sent3')
    expect(figures.some((figure) => figure.startsWith('Delivered'))).toBe(false)
    await audit.check('analytics with captured mail')
    audit.expectClean()
  })

  describe('on a server that requires verified addresses', () => {
    let strict: TestServer
    beforeAll(async () => {
      strict = await startTestServer({ config: { requireEmailVerification: true } })
    })
    afterAll(() => strict?.close())

    it('the verification gate links to the captured email, and its link opens the project', async () => {
      const { page } = session
      await signUp(page, strict.url, uniqueEmail('gated'))
      // A new project opens on its checklist, which this server keeps behind the verification gate.
      await page.getByRole('textbox', { name: 'Project name' }).fill('Gated')
      await page.getByRole('button', { name: 'Create project' }).click()
      await page.waitForURL('**/app/setup')
      const gate = page.getByRole('heading', { name: 'Verify your email address', level: 1 })
      await gate.waitFor()
      await page.getByRole('link', { name: 'Open the verification email' }).click()
      await page.waitForURL(/\/app\/mailbox\/account\/[0-9a-f-]{36}$/)
      await page.getByRole('heading', { name: 'Verify your email address', level: 2 }).waitFor()
      const link = await page
        .frameLocator('iframe[title^="Message:"]')
        .getByRole('link', { name: 'Verify email' })
        .getAttribute('href')
      await openMailedLink(page, strict.url, link ?? '')
      await page.getByText('Email verified successfully.').waitFor()
      await page.getByRole('link', { name: 'Go to the dashboard' }).click()
      await page.getByRole('heading', { name: 'Set up Gated' }).waitFor()
    })
  })
})
