import { sql } from 'drizzle-orm'
import type { Locator, Page } from 'playwright-core'
import { afterEach, describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { type HttpReceiver, startHttpReceiver } from '../helpers/http-receiver.js'
import { verifyDelivery } from '../helpers/webhook-receiver.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { appUrl, browserSession, callApi, dismissToasts } from './flows.js'
import { openNewProject } from './sign-in.js'

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath ? 'the webhooks pages in chromium' : 'the webhooks pages in chromium (skipped: no chromium)'

type Endpoint = { id: string; url: string; enabled: boolean; disabledReason: string | null; secret?: string }
type Message = { id: string; status: string; eventType: string; attemptCount: number }

const header = (request: HttpReceiver['requests'][number], key: string) => String(request.headers[key])

/** The delivery log's row of the newest message of this event type. */
const logRow = (page: Page, eventType: string) =>
  page
    .getByRole('table', { name: 'Delivery log' })
    .getByRole('row')
    .filter({ has: page.getByText(eventType, { exact: true }) })
    .first()

/** The one endpoint field's error, as Mantine ties it to its input (aria-describedby). */
async function fieldError(field: Locator): Promise<string> {
  const ids = (await field.getAttribute('aria-describedby')) ?? ''
  const page = field.page()
  for (const id of ids.split(' ').filter((value) => value.endsWith('-error'))) {
    return (await page.locator(`[id="${id}"]`).textContent()) ?? ''
  }
  return ''
}

/** The endpoint form's event-type input: types each pattern and Enter, as a user adds tags. */
async function addEventTypes(scope: Locator, patterns: string[]): Promise<void> {
  const input = scope.getByLabel(/^Event types/)
  for (const pattern of patterns) {
    await input.fill(pattern)
    await input.press('Enter')
  }
  // On to the next field, as a user does: the suggestions close and uncover the form's buttons.
  await input.press('Tab')
}

async function messagesOf(base: string, key: string, endpointId: string): Promise<Message[]> {
  return (await callApi<{ data: Message[] }>(base, key, 'GET', `/webhooks/${endpointId}/messages?limit=100`)).data
}

suite(name, { timeout: 240_000 }, () => {
  const session = browserSession()
  const receivers: HttpReceiver[] = []
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close()
  })
  async function receiver(): Promise<HttpReceiver> {
    const started = await startHttpReceiver()
    receivers.push(started)
    return started
  }

  it('adds an endpoint, shows its secret once, and a test event arrives signed and shows in the log with its answer', async () => {
    const { page, server } = session
    const hooks = await receiver()
    hooks.respondWith(() => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"received":"by the test receiver"}',
    }))
    await openNewProject(page, server.url, uniqueEmail(), 'Hooks')
    const audit = accessibilityAudit(page)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click()
    await page.waitForURL('**/app/webhooks')
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await page.getByText('No webhook endpoints').waitFor()
    await audit.check('webhooks, none yet')

    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const form = page.getByRole('dialog', { name: 'Add a webhook endpoint' })
    await form.getByRole('textbox', { name: 'Endpoint URL' }).fill(`${hooks.url}/hooks/mailroom`)
    await form.getByRole('textbox', { name: 'Description' }).fill('Order service')
    await addEventTypes(form, ['email.*', 'order.paid'])
    await audit.check('add endpoint form')
    await form.getByRole('button', { name: 'Add endpoint' }).click()

    const added = page.getByRole('dialog', { name: 'Endpoint added' })
    await added.waitFor()
    const secret = (await added.getByTestId('webhook-secret').textContent()) ?? ''
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    // The custom event nobody has tracked is accepted, with the API's warning.
    const warning = added.getByRole('status').filter({ hasText: 'Some event types match nothing known yet' })
    expect(await warning.textContent()).toContain('"order.paid" is not an event type Mailroom emits')
    await audit.check('endpoint added, secret shown')
    await added.getByRole('button', { name: 'Done' }).click()
    await added.waitFor({ state: 'detached' })

    // Shown once: nowhere on the page once its dialog is closed, nor after a reload.
    const row = page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('row').nth(1)
    await row.getByText('None yet').waitFor()
    expect(await row.textContent()).toMatch(/Order service.*email\.\*order\.paid.*Enabled.*None yet/)
    expect(await page.content()).not.toContain(secret)
    await audit.check('webhooks list')

    await row.getByRole('link', { name: `${hooks.url}/hooks/mailroom` }).click()
    await page.getByRole('heading', { name: `${hooks.url}/hooks/mailroom`, level: 1 }).waitFor()
    expect(await page.content()).not.toContain(secret)
    await page.getByText('No deliveries yet').waitFor()

    await page.getByRole('button', { name: 'Send test event' }).click()
    const [request] = await hooks.waitForRequests(1)
    if (!request) throw new Error('no delivery')
    expect(request.url).toBe('/hooks/mailroom')
    // The secret the page showed is the one that signs: the reference implementation accepts the delivery.
    expect(verifyDelivery(secret, request)).toEqual({
      type: 'webhook.test',
      timestamp: expect.any(String),
      data: { event: { message: 'A test event from Mailroom', webhookId: expect.any(String) } },
    })
    const result = page.getByTestId('test-result')
    await result.getByText(/^Delivered: HTTP 200 in \d+ ms$/).waitFor()
    expect(await result.textContent()).toContain('{"received":"by the test receiver"}')

    // The log shows it delivered; its attempts, opened, show the answer as the receiver gave it.
    const logged = logRow(page, 'webhook.test')
    await logged.getByText('Delivered').waitFor()
    expect(await logged.getByRole('cell').nth(3).textContent()).toBe('1')
    await logged.getByRole('button', { name: /^Show attempts of webhook\.test/ }).click()
    const attempts = page.getByRole('table', { name: 'Attempts of webhook.test' })
    const attempt = attempts.getByRole('row').nth(1)
    expect(await attempt.getByRole('cell').nth(1).textContent()).toBe('HTTP 200')
    expect(await attempt.getByRole('cell').nth(2).textContent()).toMatch(/^\d+ ms$/)
    expect(await attempt.getByRole('cell').nth(3).textContent()).toBe('{"received":"by the test receiver"}')
    expect(await page.getByRole('main').getByText(header(request, 'webhook-id'), { exact: true }).count()).toBe(1)
    await audit.check('endpoint, attempts open')

    // The list's "last delivery" follows.
    await page.getByRole('link', { name: '← All endpoints' }).click()
    const listed = page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('row').nth(1)
    await listed.getByText('Delivered').waitFor()
    expect(await listed.textContent()).toContain('webhook.test')
    audit.expectClean()
  })

  it('rotates the secret with both signatures for a day, retries a failed message, disables and deletes', async () => {
    const { page, server } = session
    const hooks = await receiver()
    const { project } = await openNewProject(page, server.url, uniqueEmail(), 'Rotation')
    const key = project.secret
    const endpoint = await callApi<Endpoint & { secret: string }>(server.url, key, 'POST', '/webhooks', {
      url: `${hooks.url}/in`,
      eventTypes: ['*'],
    })
    await page.goto(appUrl(server.url, `/webhooks/${endpoint.id}`))
    await page.getByRole('heading', { name: `${hooks.url}/in`, level: 1 }).waitFor()
    const audit = accessibilityAudit(page)

    // Rotation: the dialog says what happens to the old secret before anything changes.
    await page.getByRole('button', { name: 'Rotate secret…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' })
    expect(await dialog.textContent()).toContain(
      "For a day, the old secret keeps signing beside it: each delivery's webhook-signature header carries both signatures",
    )
    await audit.check('rotate secret dialog')
    await dialog.getByRole('button', { name: 'Rotate secret' }).click()
    const rotated = page.getByRole('dialog', { name: 'New signing secret' })
    const secret = (await rotated.getByTestId('webhook-secret').textContent()) ?? ''
    expect(secret).toMatch(/^whsec_/)
    expect(secret).not.toBe(endpoint.secret)
    expect(await rotated.textContent()).toContain('every delivery carries two signatures, one per secret')
    await audit.check('secret rotated')
    await rotated.getByRole('button', { name: 'Done' }).click()
    await page.getByTestId('secret-overlap').waitFor()
    expect(await page.content()).not.toContain(secret)

    // A test event that the receiver refuses: signed by both secrets, logged with its 503, due for a retry.
    hooks.respondWith(() => ({ status: 503, body: 'down for maintenance' }))
    await page.getByRole('button', { name: 'Send test event' }).click()
    const [refused] = await hooks.waitForRequests(1)
    if (!refused) throw new Error('no delivery')
    expect(header(refused, 'webhook-signature').split(' ')).toHaveLength(2)
    verifyDelivery(secret, refused)
    verifyDelivery(endpoint.secret, refused)
    await page
      .getByTestId('test-result')
      .getByText(/^Not delivered: HTTP 503 in \d+ ms$/)
      .waitFor()
    const logged = logRow(page, 'webhook.test')
    await logged.getByText('Retrying').waitFor()
    await logged.getByRole('button', { name: /^Show attempts of webhook\.test/ }).click()
    const attempts = page.getByRole('table', { name: 'Attempts of webhook.test' })
    await attempts.getByText('down for maintenance').waitFor()
    expect(await attempts.getByRole('row').nth(1).getByRole('cell').nth(1).textContent()).toBe('HTTP 503')

    // Fixed, then retried by hand: the same webhook-id arrives again, and the log says delivered. The scheduled
    // retry (5 seconds on this server) is put an hour off, so the one that arrives is the button's.
    await server.ctx.db.execute(sql`
      UPDATE webhook_messages SET next_attempt_at = now() + interval '1 hour' WHERE endpoint_id = ${endpoint.id}`)
    hooks.respondWith(() => ({ status: 204 }))
    await dismissToasts(page)
    await logged.getByRole('button', { name: /^Retry webhook\.test/ }).click()
    const retried = (await hooks.waitForRequests(2))[1]
    if (!retried) throw new Error('no retry')
    await page.getByRole('alert').filter({ hasText: 'Retrying' }).waitFor()
    expect(header(retried, 'webhook-id')).toBe(header(refused, 'webhook-id'))
    await logged.getByText('Delivered').waitFor()
    await attempts.getByRole('row').filter({ hasText: 'HTTP 204' }).waitFor()
    const [message] = await messagesOf(server.url, key, endpoint.id)
    expect(message).toMatchObject({ id: header(refused, 'webhook-id'), status: 'DELIVERED' })
    await audit.check('retried message')

    // Disabled by hand: no test event can be sent, the API agrees.
    await page.getByRole('button', { name: 'Disable endpoint' }).click()
    await page.getByTestId('endpoint-state').getByText('Disabled', { exact: true }).waitFor()
    expect(await page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true)
    const disabled = await callApi<Endpoint>(server.url, key, 'GET', `/webhooks/${endpoint.id}`)
    expect(disabled).toMatchObject({ enabled: false, disabledReason: null })

    // Disabled by Mailroom after days of failures (set in the database: days are too long for a test).
    await server.ctx.db.execute(sql`
      UPDATE webhook_endpoints SET disabled_reason = 'failing', failing_since = now() - interval '5 days'
      WHERE id = ${endpoint.id}`)
    await page.reload()
    const notice = page.getByRole('status').filter({ hasText: 'Disabled by Mailroom: it kept failing' })
    await notice.waitFor()
    expect(await notice.textContent()).toContain('emailed the project')
    await audit.check('endpoint disabled by Mailroom')
    await page.getByRole('link', { name: '← All endpoints' }).click()
    const listed = page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('row').nth(1)
    await listed.getByText('Disabled: failing').waitFor()
    expect(await listed.textContent()).toContain('Failing since5 days ago')
    await listed.getByRole('link').click()
    await page.getByRole('button', { name: 'Enable endpoint' }).click()
    await page.getByTestId('endpoint-state').getByText('Enabled').waitFor()
    expect(await notice.count()).toBe(0)
    expect(await callApi<Endpoint>(server.url, key, 'GET', `/webhooks/${endpoint.id}`)).toMatchObject({
      enabled: true,
      disabledReason: null,
    })

    // Deleted after asking.
    await page.getByRole('button', { name: 'Delete endpoint…' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete this endpoint?' })
    expect(await confirm.textContent()).toContain('its delivery log is deleted with it')
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click()
    await page.waitForURL('**/app/webhooks')
    await page.getByText('No webhook endpoints').waitFor()
    expect(await callApi<Endpoint[]>(server.url, key, 'GET', '/webhooks')).toEqual([])
    audit.expectClean()
  })

  it('shows the API’s field errors for a bad URL and bad event types, and saves nothing', async () => {
    const { page, server } = session
    const { project } = await openNewProject(page, server.url, uniqueEmail(), 'Refusals')
    await page.goto(appUrl(server.url, '/webhooks'))
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const form = page.getByRole('dialog', { name: 'Add a webhook endpoint' })
    const url = form.getByRole('textbox', { name: 'Endpoint URL' })
    const eventTypes = form.getByLabel(/^Event types/)
    const submit = form.getByRole('button', { name: 'Add endpoint' })

    await url.fill('ftp://files.example.com/hook')
    await addEventTypes(form, ['email.*'])
    await submit.click()
    await form.getByText('url must be an absolute http:// or https:// URL').waitFor()
    expect(await fieldError(url)).toBe('url must be an absolute http:// or https:// URL')
    expect(await url.getAttribute('aria-invalid')).toBe('true')

    // The cloud metadata address is refused even where private addresses are allowed (as on this test server).
    await url.fill('http://169.254.169.254/latest/meta-data')
    await submit.click()
    await form.getByText(/is not a public address \(link-local\)/).waitFor()
    expect(await fieldError(url)).toContain('url host 169.254.169.254 is not a public address (link-local)')

    await url.fill('https://hooks.example.com/in')
    // Backspace in the empty input takes the last pattern off, as from the keyboard.
    await eventTypes.press('Backspace')
    await addEventTypes(form, ['email sent'])
    await submit.click()
    await form.getByText(/must not contain spaces/).waitFor()
    expect(await fieldError(eventTypes)).toBe('“email sent”: event types must not contain spaces or control characters')
    expect(await fieldError(url)).toBe('')
    const audit = accessibilityAudit(page)
    await audit.check('endpoint form with field errors')
    audit.expectClean()
    expect(await callApi<Endpoint[]>(server.url, project.secret, 'GET', '/webhooks')).toEqual([])
  })

  it('replays a time range, bounded to 7 days as the API bounds it', async () => {
    const { page, server } = session
    const hooks = await receiver()
    const { project } = await openNewProject(page, server.url, uniqueEmail(), 'Replays')
    const key = project.secret
    const endpoint = await callApi<Endpoint>(server.url, key, 'POST', '/webhooks', {
      url: `${hooks.url}/replayed`,
      eventTypes: ['*'],
    })
    await callApi(server.url, key, 'POST', `/webhooks/${endpoint.id}/test`)
    await callApi(server.url, key, 'POST', `/webhooks/${endpoint.id}/test`)
    await hooks.waitForRequests(2)
    // This page in the dark scheme; the others are audited in the light one.
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.goto(appUrl(server.url, `/webhooks/${endpoint.id}`))
    const replay = page.getByRole('form', { name: 'Replay messages' })
    const from = replay.getByLabel('From')
    const to = replay.getByLabel('To')

    // Eight days: refused with the API's message beside the field it names.
    const toValue = await to.inputValue()
    const eightDaysBefore = new Date(new Date(toValue).getTime() - 8 * 86_400_000)
    const local = (date: Date) =>
      `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}` +
      `T${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`
    await from.fill(local(eightDaysBefore))
    await replay.getByRole('button', { name: 'Replay messages' }).click()
    await replay.getByText('a replay covers at most 7 days').waitFor()
    expect(await fieldError(to)).toBe('a replay covers at most 7 days')
    expect(hooks.requests).toHaveLength(2)

    // The last hour: both messages go again.
    await from.fill(local(new Date(Date.now() - 3_600_000)))
    await replay.getByRole('button', { name: 'Replay messages' }).click()
    await page.getByTestId('replay-result').getByText('2 messages go out again.').waitFor()
    const again = await hooks.waitForRequests(4)
    const ids = again.map((request) => header(request, 'webhook-id'))
    expect(new Set(ids).size).toBe(2)
    await logRow(page, 'webhook.test')
      .getByRole('button', { name: /^Show attempts/ })
      .click()
    await page.getByRole('table', { name: 'Attempts of webhook.test' }).waitFor()
    const audit = accessibilityAudit(page)
    await audit.check('replayed, attempts open, dark')
    audit.expectClean()
  })

  it('works from the keyboard: add an endpoint, send a test event, open its attempts and retry it', async () => {
    const { page, server } = session
    const hooks = await receiver()
    const { project } = await openNewProject(page, server.url, uniqueEmail(), 'Keyboard hooks')
    await page.goto(appUrl(server.url, '/webhooks'))
    await page.getByText('No webhook endpoints').waitFor()

    const focused = (target: Locator) => target.and(page.locator(':focus')).count()
    const tabTo = async (target: Locator) => {
      for (let presses = 0; presses < 60; presses++) {
        await page.keyboard.press('Tab')
        if ((await focused(target)) === 1) return
      }
      throw new Error(`Tab never reached ${target}`)
    }

    await tabTo(page.getByRole('button', { name: 'Add endpoint' }))
    await page.keyboard.press('Enter')
    const form = page.getByRole('dialog', { name: 'Add a webhook endpoint' })
    // The URL field takes the focus as the dialog opens.
    await form.getByRole('textbox', { name: 'Endpoint URL' }).waitFor()
    expect(await focused(form.getByRole('textbox', { name: 'Endpoint URL' }))).toBe(1)
    await page.keyboard.type(`${hooks.url}/keys`)
    await tabTo(form.getByLabel(/^Event types/))
    await page.keyboard.type('webhook.*')
    await page.keyboard.press('Enter')
    await tabTo(form.getByRole('button', { name: 'Add endpoint' }))
    await page.keyboard.press('Enter')
    const added = page.getByRole('dialog', { name: 'Endpoint added' })
    await added.waitFor()
    await tabTo(added.getByRole('button', { name: 'Done' }))
    await page.keyboard.press('Enter')
    await added.waitFor({ state: 'detached' })

    await tabTo(page.getByRole('link', { name: `${hooks.url}/keys` }))
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: `${hooks.url}/keys`, level: 1 }).waitFor()
    await tabTo(page.getByRole('button', { name: 'Send test event' }))
    await page.keyboard.press('Enter')
    await hooks.waitForRequests(1)
    const logged = logRow(page, 'webhook.test')
    await logged.getByText('Delivered').waitFor()
    const show = logged.getByRole('button', { name: /^Show attempts of webhook\.test/ })
    await tabTo(show)
    await page.keyboard.press('Enter')
    await page.getByRole('table', { name: 'Attempts of webhook.test' }).waitFor()
    expect(await logged.getByRole('button', { name: /^Hide attempts/ }).getAttribute('aria-expanded')).toBe('true')
    await tabTo(logged.getByRole('button', { name: /^Retry webhook\.test/ }))
    await page.keyboard.press('Enter')
    const [first, second] = await hooks.waitForRequests(2)
    if (!first || !second) throw new Error('no retry')
    expect(header(second, 'webhook-id')).toBe(header(first, 'webhook-id'))
    // Both attempts in the opened log: the table has its header row and one row per attempt.
    await page.getByRole('table', { name: 'Attempts of webhook.test' }).getByRole('row').nth(2).waitFor()
    const endpoints = await callApi<Endpoint[]>(server.url, project.secret, 'GET', '/webhooks')
    expect(endpoints).toEqual([expect.objectContaining({ url: `${hooks.url}/keys`, eventTypes: ['webhook.*'] })])
  })
})
