import type { BrowserContext, Page } from 'playwright-core'
import type { ProjectView } from '../../src/modules/projects/schemas.js'
import { sessionCookie } from '../helpers/factories.js'

/*
 * Signing in through the API, for the tests that are not about signing up or logging in: an account and a project
 * made with fetch, and the session handed to the browser as its cookie. Much faster than the forms, which the
 * tests about them still fill in.
 */

/** The password the sign-up form's helper uses too. */
export const defaultPassword = 'a long password'

const json = { 'content-type': 'application/json' }

/** POST /auth/signup (or /auth/login): the session cookie it sets, as a `name=value` pair. */
async function startSession(base: string, path: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, password }),
  })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return sessionCookie(response.headers.getSetCookie())
}

export const signUpByApi = (base: string, email: string, password = defaultPassword) =>
  startSession(base, '/auth/signup', email, password)

export const logInByApi = (base: string, email: string, password = defaultPassword) =>
  startSession(base, '/auth/login', email, password)

/** POST /users/@me/projects with the session cookie: the project, keys included. */
export async function createProjectByApi(base: string, cookie: string, name: string): Promise<ProjectView> {
  const response = await fetch(`${base}/users/@me/projects`, {
    method: 'POST',
    headers: { ...json, cookie },
    body: JSON.stringify({ name }),
  })
  if (response.status !== 201) throw new Error(`project create: ${response.status} ${await response.text()}`)
  return (await response.json()) as ProjectView
}

/** Gives the browser context the session, as the server's Set-Cookie would have. */
export async function addSession(context: BrowserContext, base: string, cookie: string): Promise<void> {
  const split = cookie.indexOf('=')
  await context.addCookies([
    { name: cookie.slice(0, split), value: cookie.slice(split + 1), url: base, httpOnly: true, sameSite: 'Lax' },
  ])
}

/**
 * Makes the dashboard open on this project, as creating or joining it in the UI does: it keeps the chosen project
 * in localStorage (web/src/api/session.ts). Set before the app's scripts run, and only when nothing is chosen yet,
 * so a later choice in the UI stands.
 */
export async function rememberProject(context: BrowserContext, base: string, projectId: string): Promise<void> {
  const origin = JSON.stringify(new URL(base).origin)
  // A script, not a function: this file is compiled without the DOM's types. Every frame runs it, the sandboxed
  // email previews too, where localStorage is off limits.
  await context.addInitScript(`if (location.origin === ${origin} && !localStorage.getItem('mailroom.projectId'))
    localStorage.setItem('mailroom.projectId', ${JSON.stringify(projectId)})`)
}

/**
 * A new account with a project, signed in through the API, the page on the project's keys as after the create
 * project form: the project, and the account's session cookie.
 */
export async function openNewProject(page: Page, base: string, email: string, name: string) {
  const cookie = await signUpByApi(base, email)
  const project = await createProjectByApi(base, cookie, name)
  await addSession(page.context(), base, cookie)
  await rememberProject(page.context(), base, project.id)
  await page.goto(`${base}/app/keys`)
  await page.getByRole('table', { name: `Keys of ${name}` }).waitFor()
  return { project, cookie }
}
