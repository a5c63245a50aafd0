import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createAccount, uniqueEmail } from '../helpers/factories.js'
import { startTestServer } from '../helpers/server.js'
import { waitForSystemEmail } from '../helpers/system-mail.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { appUrl, browserSession, openMailedLink, signUp } from './flows.js'
import { addSession, logInByApi, openNewProject, signUpByApi } from './sign-in.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const timeout = 240_000
const name = chromiumPath
  ? 'account pages in chromium'
  : 'account pages in chromium (skipped: no chromium binary found)'

/** The text of the error Mantine shows for an input (linked by aria-describedby), or '' when there is none. */
async function fieldError(page: Page, label: string): Promise<string> {
  const input = page.getByRole('textbox', { name: label, exact: true })
  if ((await input.getAttribute('aria-invalid')) !== 'true') return ''
  const describedBy = (await input.getAttribute('aria-describedby')) ?? ''
  const id = describedBy.split(' ').find((part) => part.includes('error'))
  return id ? ((await page.locator(`[id="${id}"]`).textContent()) ?? '') : ''
}

suite(name, { timeout }, () => {
  const session = browserSession()

  it('verifies the address through the mailed link, asked for from the setup page', async () => {
    const { page, server } = session
    const email = uniqueEmail('verify')
    await openNewProject(page, server.url, email, 'Verified shop')
    // Verification is optional on this server: the landing page offers it.
    await page.goto(appUrl(server.url, '/'))
    await page.waitForURL('**/app/setup')
    await page.getByText(`${email} is not verified yet`).waitFor()
    await page.getByRole('button', { name: 'Send a verification email' }).click()
    await page.getByText('Verification email sent').waitFor()
    const mail = await waitForSystemEmail(server, email)
    expect(mail.subject).toBe('Verify your email address')
    expect(mail.link).toMatch(/\/app\/verify-email\?token=[0-9a-f]{64}$/)

    await openMailedLink(page, server.url, mail.link)
    await page.getByRole('status').filter({ hasText: 'Email verified' }).waitFor()
    const me = await page.evaluate(() => fetch('/users/@me').then((response) => response.json()))
    expect(me).toMatchObject({ email, emailVerified: true })

    // The link works once: opening it again says so.
    await openMailedLink(page, server.url, mail.link)
    await page.getByRole('alert').filter({ hasText: 'Invalid or expired verification token' }).waitFor()
    await page.getByRole('link', { name: 'Go to the dashboard' }).click()
    await page.waitForURL('**/app/setup')
    await page.getByRole('heading', { name: 'Set up Verified shop' }).waitFor()
    expect(await page.getByText('is not verified yet').count()).toBe(0)
  })

  it('where verification is required, signup mails the link and the project waits behind it', async () => {
    const { page } = session
    const strict = await startTestServer({ config: { requireEmailVerification: true } })
    try {
      const email = uniqueEmail('strict')
      await signUp(page, strict.url, email)
      await page.getByRole('textbox', { name: 'Project name' }).fill('Strict shop')
      await page.getByRole('button', { name: 'Create project' }).click()
      await page.getByRole('heading', { name: 'Verify your email address', level: 1 }).waitFor()
      expect(await page.getByRole('table').count()).toBe(0)

      const mail = await waitForSystemEmail(strict, email)
      expect(mail.link).toMatch(/\/app\/verify-email\?token=[0-9a-f]{64}$/)
      // A second link on request; both stay usable until one is used.
      await page.getByRole('button', { name: 'Send a verification email' }).click()
      await page.getByText('Verification email sent').waitFor()
      await waitForSystemEmail(strict, email, 2)

      await openMailedLink(page, strict.url, mail.link)
      await page.getByRole('status').filter({ hasText: 'Email verified' }).waitFor()
      await page.getByRole('link', { name: 'Go to the dashboard' }).click()
      await page.waitForURL('**/app/setup')
      await page.getByRole('heading', { name: 'Set up Strict shop' }).waitFor()
    } finally {
      await strict.close()
    }
  })

  it('resets a forgotten password through the mailed link: policy errors at the field, old sessions end', async () => {
    const { page, server, browser } = session
    const email = uniqueEmail('reset')
    await openNewProject(page, server.url, email, 'Reset shop')
    // Another device stays logged in with the old password.
    const otherContext = await browser.newContext()
    const other = await otherContext.newPage()
    try {
      await addSession(otherContext, server.url, await logInByApi(server.url, email))
      await page.getByRole('button', { name: 'Log out' }).click()
      await page.waitForURL('**/app/login')

      await page.getByRole('link', { name: 'Forgot password?' }).click()
      // A lazy route: until its code has loaded, the login page and its own Email field stay on screen.
      await page.getByRole('button', { name: 'Send reset link' }).waitFor()
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
      await page.getByRole('button', { name: 'Send reset link' }).click()
      await page.getByText('If that email exists, a reset link has been sent').waitFor()
      const mails = await waitForSystemEmail(server, email)
      expect(mails.subject).toBe('Reset your password')
      expect(mails.link).toMatch(/\/app\/reset-password\?token=[0-9a-f]{64}$/)

      await openMailedLink(page, server.url, mails.link)
      await page.getByRole('textbox', { name: 'New password', exact: true }).fill('password1')
      await page.getByRole('textbox', { name: 'Repeat the new password', exact: true }).fill('password1')
      await page.getByRole('button', { name: 'Change password' }).click()
      await expect.poll(() => fieldError(page, 'New password'), { timeout: 10_000 }).toContain('most common passwords')

      await page.getByRole('textbox', { name: 'New password', exact: true }).fill('a fresh passphrase')
      await page.getByRole('textbox', { name: 'Repeat the new password', exact: true }).fill('a different one')
      await page.getByRole('button', { name: 'Change password' }).click()
      await expect.poll(() => fieldError(page, 'Repeat the new password'), { timeout: 10_000 }).toContain('differ')

      await page.getByRole('textbox', { name: 'Repeat the new password', exact: true }).fill('a fresh passphrase')
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor()

      // The other device's session ended at once.
      await other.goto(appUrl(server.url, '/keys'))
      await other.waitForURL('**/app/login?next=%2Fkeys')

      await page.getByRole('link', { name: 'Log in with your new password' }).click()
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email)
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill('a long password')
      await page.getByRole('button', { name: 'Log in' }).click()
      await page.getByRole('alert').waitFor()
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill('a fresh passphrase')
      await page.getByRole('button', { name: 'Log in' }).click()
      await page.waitForURL('**/app/setup')
      await page.getByRole('heading', { name: 'Set up Reset shop' }).waitFor()
    } finally {
      await otherContext.close()
    }
  })

  it('invites a new address: the link shows the project, signup through it makes a member', async () => {
    const { page, server, browser } = session
    const owner = uniqueEmail('owner')
    await openNewProject(page, server.url, owner, 'Team shop')
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('link', { name: 'Team' }).click()
    const invitee = uniqueEmail('invitee')
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(invitee)
    await page.getByRole('button', { name: 'Invite' }).click()
    await page.getByText(`An invitation was mailed to ${invitee}.`).waitFor()

    const mail = await waitForSystemEmail(server, invitee)
    expect(mail.link).toMatch(/\/app\/invitation\?token=/)
    const inviteeContext = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const guest = await inviteeContext.newPage()
    try {
      await openMailedLink(guest, server.url, mail.link)
      await guest.getByText(`${owner} invited ${invitee} to the project Team shop as member.`).waitFor()
      await guest.getByRole('link', { name: 'Sign up to join' }).click()
      await guest.waitForURL('**/app/signup?**')
      expect(await guest.getByRole('textbox', { name: 'Email', exact: true }).inputValue()).toBe(invitee)
      await guest.getByRole('textbox', { name: 'Password', exact: true }).fill('an invitee passphrase')
      await guest.getByRole('button', { name: 'Sign up' }).click()
      // The new account opens on the project it joined, not on "create a project".
      await guest.waitForURL('**/app/setup')
      await guest.getByRole('heading', { name: 'Set up Team shop' }).waitFor()
      expect(await guest.getByRole('combobox', { name: 'Project' }).inputValue()).toBe('Team shop')

      // The invitation is used: opening it again says so.
      await openMailedLink(guest, server.url, mail.link)
      await guest.getByRole('alert').filter({ hasText: 'Invalid or expired invitation' }).waitFor()
    } finally {
      await inviteeContext.close()
    }

    await page.reload()
    const members = page.getByRole('table', { name: 'Members of Team shop' })
    await members.getByText(invitee).waitFor()
    expect(await page.getByRole('combobox', { name: `Role of ${invitee}` }).inputValue()).toBe('Member')
  })

  it('a signed-in invitee joins the project from the link with one click', async () => {
    const { page, server } = session
    const owner = await createAccount(server, 'Joinable')
    const email = uniqueEmail('joiner')
    const invited = await server.app.inject({
      method: 'POST',
      url: `/projects/${owner.project.id}/members`,
      headers: { cookie: owner.cookie },
      payload: { email, role: 'ADMIN' },
    })
    expect(invited.json().data.status).toBe('INVITED')
    const mail = await waitForSystemEmail(server, email)
    // They made an account on their own before opening the link.
    await addSession(page.context(), server.url, await signUpByApi(server.url, email))
    await openMailedLink(page, server.url, mail.link)
    await page.getByText(`to the project Joinable as admin.`).waitFor()
    await page.getByRole('button', { name: 'Join Joinable' }).click()
    await page.waitForURL('**/app/setup')
    await page.getByRole('heading', { name: 'Set up Joinable' }).waitFor()
    expect(await page.getByRole('combobox', { name: 'Project' }).inputValue()).toBe('Joinable')
  })

  it('every account page passes an axe check with no serious or critical violation', async () => {
    const { page, server, context } = session
    const audit = accessibilityAudit(page)
    await page.goto(appUrl(server.url, '/login'))
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await page.getByRole('button', { name: 'Send reset link' }).waitFor()
    await audit.check('forgot password')
    await page.goto(appUrl(server.url, `/reset-password?token=${'0'.repeat(64)}`))
    await page.getByRole('button', { name: 'Change password' }).waitFor()
    await audit.check('reset password')
    await page.getByRole('textbox', { name: 'New password', exact: true }).fill('a fresh passphrase')
    await page.getByRole('textbox', { name: 'Repeat the new password', exact: true }).fill('a fresh passphrase')
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByRole('alert').filter({ hasText: 'Invalid or expired reset token' }).waitFor()
    await audit.check('reset password (bad link)')
    await page.goto(appUrl(server.url, `/verify-email?token=${'0'.repeat(64)}`))
    await page.getByRole('alert').waitFor()
    await audit.check('verify email (bad link)')
    await page.goto(appUrl(server.url, '/invitation?token=forged'))
    await page.getByRole('alert').waitFor()
    await audit.check('invitation (bad link)')

    await openNewProject(page, server.url, uniqueEmail('audit'), 'Audit')
    await page.goto(appUrl(server.url, '/'))
    await page.getByText('steps done').waitFor()
    await audit.check('setup checklist')
    await page.goto(appUrl(server.url, '/settings/team'))
    const invitee = uniqueEmail('audit-invitee')
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(invitee)
    await page.getByRole('button', { name: 'Invite' }).click()
    const mail = await waitForSystemEmail(server, invitee)
    await openMailedLink(page, server.url, mail.link)
    await page.getByText('Signed in with another address').waitFor()
    await audit.check('invitation (signed in)')
    await context.clearCookies()
    await page.reload()
    await page.getByRole('link', { name: 'Sign up to join' }).waitFor()
    await audit.check('invitation')
    audit.expectClean()
  })
})
