import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import {
  addDomain,
  browserSession,
  dismissToasts,
  pickOption,
  postWithKey,
  startProject,
  waitForCapture,
} from './flows.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const timeout = 300_000
/** Waits on what the worker or the API does in the background, which a busy 2-core machine slows down. */
const patient = { timeout: 20_000 }
const name = chromiumPath ? 'workflows in chromium' : 'workflows in chromium (skipped: no chromium binary found)'

/** A project with a sender domain and a transactional template, ready for workflows; answers its secret key. */
async function setUpProject(page: Page, base: string, project: string, domain: string): Promise<string> {
  const key = await startProject(page, base, uniqueEmail(), project)
  await addDomain(page, domain)
  await postWithKey(
    base,
    key,
    '/templates',
    {
      name: 'Thanks',
      subject: 'Thanks for your order',
      body: '<p>Hello {{email}}, thanks for your order.</p>',
      from: `orders@${domain}`,
      type: 'TRANSACTIONAL',
    },
    201,
  )
  return key
}

/** A new workflow from the list page; `suggested` picks the event among the names the project has tracked. */
async function createWorkflow(page: Page, workflowName: string, eventName: string, suggested = false): Promise<void> {
  await page.getByRole('link', { name: 'Workflows' }).click()
  await page.getByRole('button', { name: 'New workflow' }).first().click()
  const dialog = page.getByRole('dialog', { name: 'New workflow' })
  await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(workflowName)
  if (suggested) await pickOption(page, 'Trigger event', eventName)
  else await dialog.getByRole('combobox', { name: 'Trigger event' }).fill(eventName)
  await dialog.getByRole('button', { name: 'Create workflow' }).click()
  await page.getByRole('heading', { name: workflowName, level: 1 }).waitFor()
  await dismissToasts(page)
}

/** Opens a step from the editor's step list (or the panel's close first) and waits for its panel. */
async function selectStep(page: Page, stepName: string): Promise<void> {
  const close = page.getByRole('button', { name: 'Close step panel' })
  if (await close.isVisible()) await close.click()
  await page.getByRole('navigation', { name: 'Steps' }).getByRole('button', { name: stepName, exact: true }).click()
  await page.getByRole('heading', { name: stepName, level: 2 }).waitFor()
}

async function addSendEmailAfter(page: Page, button = 'Add step after'): Promise<void> {
  await page.getByRole('button', { name: button }).click()
  const dialog = page.getByRole('dialog')
  await pickOption(page, 'Template', /Thanks — Thanks for your order/)
  await dialog.getByRole('button', { name: 'Add step' }).click()
  await dialog.waitFor({ state: 'detached' })
}

async function addDelayAfter(page: Page, amount: string): Promise<void> {
  await page.getByRole('button', { name: 'Add step after' }).click()
  const dialog = page.getByRole('dialog')
  await pickOption(page, 'Step type', 'Delay')
  await dialog.getByRole('textbox', { name: 'Wait for' }).fill(amount)
  await pickOption(page, 'Unit', 'Days')
  await dialog.getByRole('button', { name: 'Add step' }).click()
}

async function enable(page: Page): Promise<void> {
  await page.getByRole('switch', { name: 'Enabled' }).click()
  await expect.poll(() => page.getByRole('switch', { name: 'Enabled' }).isChecked(), patient).toBe(true)
  await dismissToasts(page)
}

suite(name, { timeout }, () => {
  const session = browserSession()

  it('builds a two-step workflow, runs it on a tracked event, and shows the history and the email', async () => {
    const { page, server } = session
    const audit = accessibilityAudit(page)
    const key = await setUpProject(page, server.url, 'Orders', 'orders.example')

    await page.getByRole('link', { name: 'Workflows' }).click()
    await page.getByText('No workflows yet').waitFor()
    await audit.check('workflows (empty)')
    // An event tracked before the workflow exists starts nothing, and its name is offered as a trigger.
    await postWithKey(server.url, key, '/v1/track', { email: 'early@example.net', event: 'order.placed' })
    await createWorkflow(page, 'Order follow-up', 'order.placed', true)
    // A new workflow is its trigger alone, disabled.
    expect(await page.getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(false)
    await page.getByRole('group', { name: 'Trigger step Trigger: order.placed' }).waitFor()
    await audit.check('workflow editor')

    await selectStep(page, 'Trigger: order.placed')
    expect(await page.getByText('not connected').isVisible()).toBe(true)
    await page.getByRole('button', { name: 'Add step after' }).click()
    await page.getByRole('dialog', { name: 'Add a step after Trigger: order.placed' }).waitFor()
    await audit.check('add step dialog')
    await page.keyboard.press('Escape')
    await addSendEmailAfter(page)

    // The new step is on the graph, after the trigger, and its panel is open.
    await page.getByRole('group', { name: 'Send email step Send email' }).waitFor()
    await page.getByRole('heading', { name: 'Send email', level: 2 }).waitFor()
    expect(await page.getByRole('group', { name: 'Send email step Send email' }).textContent()).toContain(
      'Template: Thanks',
    )
    await selectStep(page, 'Trigger: order.placed')
    await page.getByText('leads to Send email').waitFor()
    await audit.check('workflow editor with a step')
    await enable(page)

    await postWithKey(server.url, key, '/v1/track', {
      email: 'buyer@example.net',
      event: 'order.placed',
      subscribed: true,
    })

    await page.getByRole('link', { name: 'Executions' }).click()
    await page.getByRole('heading', { name: 'Executions of Order follow-up' }).waitFor()
    const executions = page.getByRole('table', { name: 'Executions' })
    await expect.poll(() => executions.textContent(), { timeout: 60_000 }).toContain('COMPLETED')
    expect(await executions.textContent()).toContain('buyer@example.net')
    await audit.check('executions')

    await executions.getByRole('link', { name: 'buyer@example.net' }).click()
    await page.getByRole('heading', { name: 'Execution for buyer@example.net' }).waitFor()
    const history = page.getByRole('table', { name: 'Step history' })
    await expect.poll(() => history.getByRole('row').count(), patient).toBe(3)
    const rows = await history.getByRole('row').allTextContents()
    expect(rows[1]).toContain('Trigger: order.placed')
    expect(rows[2]).toContain('Send email')
    expect(rows[2]).toContain('COMPLETED')
    await audit.check('execution')

    await waitForCapture(server.url, key, 'Thanks for your order')
    await page.getByRole('link', { name: 'Mailbox' }).click()
    await page.getByRole('link', { name: /Thanks for your order/ }).click()
    await expect
      .poll(async () => page.getByRole('table', { name: 'Message headers' }).textContent(), patient)
      .toContain('buyer@example.net')

    await page.getByRole('link', { name: 'Workflows' }).click()
    const list = page.getByRole('table', { name: 'Workflows' })
    await list.getByRole('link', { name: 'Order follow-up', exact: true }).waitFor()
    const row = await list.getByRole('row').nth(1).textContent()
    expect(row).toContain('Event: order.placed')
    expect(row).toContain('Enabled')
    await audit.check('workflows')
    audit.expectClean()
  })

  it("shows the API's refusals: a loop, a step or workflow an execution is waiting in, a bad config", async () => {
    const { page, server } = session
    const key = await setUpProject(page, server.url, 'Drip', 'drip.example')
    await createWorkflow(page, 'Drip', 'signed.up')
    await selectStep(page, 'Trigger: signed.up')

    // A field error from the API (422 at config.amount) shows next to its field.
    await addDelayAfter(page, '400')
    const amount = page.getByRole('dialog').getByRole('textbox', { name: 'Wait for' })
    await expect.poll(() => amount.getAttribute('aria-invalid'), patient).toBe('true')
    expect(await page.getByRole('dialog').textContent()).toContain('A delay may last at most 365 days')
    await amount.fill('2')
    await page.getByRole('dialog').getByRole('button', { name: 'Add step' }).click()
    await page.getByRole('heading', { name: 'Delay', level: 2 }).waitFor()
    await addSendEmailAfter(page)
    await page.getByRole('heading', { name: 'Send email', level: 2 }).waitFor()

    // Send email → Delay would close a loop.
    await pickOption(page, 'Connect to', 'Delay')
    await page.getByRole('button', { name: 'Connect', exact: true }).click()
    await expect
      .poll(() => page.getByRole('alert').first().textContent(), patient)
      .toContain('This connection would create a loop in the workflow')

    await enable(page)
    await postWithKey(server.url, key, '/v1/track', { email: 'new@example.net', event: 'signed.up', subscribed: true })
    await page.getByRole('link', { name: 'Executions' }).click()
    const executions = page.getByRole('table', { name: 'Executions' })
    await expect.poll(() => executions.textContent(), { timeout: 60_000 }).toContain('WAITING')
    expect(await executions.textContent()).toContain('Delay')

    // The execution waits on the delay: splicing it out would strand it.
    await page.getByRole('link', { name: 'Back to Drip' }).click()
    await selectStep(page, 'Delay')
    await page.getByRole('button', { name: 'Delete and reconnect' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete Delay?' })
    await confirm.getByRole('button', { name: 'Delete step' }).click()
    await expect
      .poll(() => confirm.getByRole('alert').textContent(), patient)
      .toContain('Cannot splice this step out while 1 execution(s) are on step "Delay"')
    await confirm.getByRole('button', { name: 'Cancel' }).click()

    // A manual start with context, for another contact (this one may not re-enter), opens the execution's page.
    await postWithKey(server.url, key, '/contacts', { email: 'second@example.net', subscribed: true }, 201)
    await page.getByRole('button', { name: 'Start execution…' }).click()
    const start = page.getByRole('dialog', { name: 'Start Drip' })
    await start.getByRole('combobox', { name: 'Contact' }).fill('second@')
    await page.getByRole('option', { name: 'second@example.net' }).click()
    await start.getByRole('textbox', { name: 'Context (optional)' }).fill('{"coupon": "WELCOME10"}')
    await start.getByRole('button', { name: 'Start execution' }).click()
    await page.getByRole('heading', { name: 'Execution for second@example.net' }).waitFor()
    await expect
      .poll(() => page.getByRole('table', { name: 'Execution' }).textContent(), patient)
      .toContain('Manual start')
    expect(await page.getByText('WELCOME10').isVisible()).toBe(true)
    // It waits on the delay too; cancelling it stops it there.
    await expect.poll(() => page.getByTestId('execution-status').textContent(), { timeout: 30_000 }).toBe('WAITING')
    await dismissToasts(page)
    await page.getByRole('button', { name: 'Cancel execution…' }).click()
    await page
      .getByRole('dialog', { name: 'Cancel this execution?' })
      .getByRole('button', { name: 'Cancel execution' })
      .click()
    await expect.poll(() => page.getByTestId('execution-status').textContent(), { timeout: 30_000 }).toBe('CANCELLED')
    expect(await page.getByRole('button', { name: 'Cancel execution…' }).count()).toBe(0)

    // Deleting the workflow is refused while executions are active.
    await page.getByRole('link', { name: 'Workflows' }).click()
    await page.getByRole('button', { name: 'Delete Drip' }).click()
    const remove = page.getByRole('dialog', { name: 'Delete Drip?' })
    await remove.getByRole('button', { name: 'Delete workflow' }).click()
    await expect
      .poll(() => remove.getByRole('alert').textContent(), patient)
      .toContain('Cannot delete workflow: it has 1 active execution(s)')
    await remove.getByRole('button', { name: 'Cancel' }).click()

    // Cancel all, then the delete goes through.
    await page.getByRole('link', { name: '2 executions of Drip' }).click()
    await page.getByRole('button', { name: 'Cancel all active…' }).click()
    await page
      .getByRole('dialog', { name: 'Cancel every active execution?' })
      .getByRole('button', { name: 'Cancel all' })
      .click()
    await page.getByText('1 execution(s) cancelled').waitFor()
    await expect
      .poll(async () => (await executions.textContent())?.match(/CANCELLED/g)?.length, { timeout: 30_000 })
      .toBe(2)
    await pickOption(page, 'Status', 'COMPLETED')
    await page.getByText('No completed executions').waitFor()
    await page.getByRole('combobox', { name: 'Status' }).click()
    await page.getByRole('option', { name: 'CANCELLED' }).click()
    await page.getByText('2 executions', { exact: true }).waitFor()
    await page.getByRole('link', { name: 'Workflows' }).click()
    await page.getByRole('button', { name: 'Delete Drip' }).click()
    await page.getByRole('dialog', { name: 'Delete Drip?' }).getByRole('button', { name: 'Delete workflow' }).click()
    await page.getByText('No workflows yet').waitFor()
  })

  it('branches with a condition step built in the condition builder: a matching contact takes yes', async () => {
    const { page, server } = session
    const key = await setUpProject(page, server.url, 'Branches', 'vip.example')
    await createWorkflow(page, 'VIP thanks', 'order.placed')
    await selectStep(page, 'Trigger: order.placed')
    await page.getByRole('button', { name: 'Add step after' }).click()
    const dialog = page.getByRole('dialog')
    await pickOption(page, 'Step type', 'Condition')
    await dialog.getByRole('textbox', { name: 'Step name' }).fill('Is VIP')
    await dialog.getByRole('group', { name: 'Step condition' }).getByRole('textbox', { name: 'Value' }).fill('vip')
    await dialog.getByRole('button', { name: 'Add step' }).click()
    await page.getByRole('heading', { name: 'Is VIP', level: 2 }).waitFor()
    expect(await page.getByText('yes: not connected').isVisible()).toBe(true)
    expect(await page.getByText('no: not connected').isVisible()).toBe(true)

    await addSendEmailAfter(page, 'Add step on yes')
    await selectStep(page, 'Is VIP')
    await page.getByText('yes: leads to Send email').waitFor()
    expect(await page.getByText('no: not connected').isVisible()).toBe(true)
    // The transition is drawn with its branch's name.
    await page.locator('.react-flow__edge-text', { hasText: 'yes' }).waitFor()

    // Drawing from the "no" handle onto the email step connects that branch; selecting it and pressing Delete
    // disconnects it again.
    const noHandle = page.getByRole('group', { name: 'Condition step Is VIP' }).locator('[data-handleid="branch:no"]')
    const target = page.getByRole('group', { name: 'Send email step Send email' }).locator('.react-flow__handle.target')
    const from = await noHandle.boundingBox()
    const to = await target.boundingBox()
    if (!from || !to) throw new Error('the graph shows no handles to connect')
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
    await page.mouse.down()
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 10 })
    await page.mouse.up()
    await page.getByText('no: leads to Send email').waitFor()
    await page.getByRole('group', { name: 'From Is VIP, no, to Send email' }).focus()
    await page.keyboard.press('Enter')
    await page.keyboard.press('Delete')
    await page.getByText('no: not connected').waitFor()

    await enable(page)
    await postWithKey(server.url, key, '/v1/track', {
      email: 'vip@example.net',
      event: 'order.placed',
      subscribed: true,
    })
    await page.getByRole('link', { name: 'Executions' }).click()
    const executions = page.getByRole('table', { name: 'Executions' })
    await expect.poll(() => executions.textContent(), { timeout: 60_000 }).toContain('COMPLETED')
    await executions.getByRole('link', { name: 'vip@example.net' }).click()
    const history = page.getByRole('table', { name: 'Step history' })
    await expect.poll(() => history.getByRole('row').count(), patient).toBe(4)
    const rows = await history.getByRole('row').allTextContents()
    expect(rows[2]).toContain('Is VIP')
    expect(rows[2]).toContain('"branch": "yes"')
    expect(rows[3]).toContain('Send email')
    await waitForCapture(server.url, key, 'Thanks for your order')
  })

  it("saves each step type's form as the config the API holds: wait with timeout, webhook, contact update, exit", async () => {
    const { page, server } = session
    const key = await setUpProject(page, server.url, 'Forms', 'forms.example')
    await createWorkflow(page, 'Payment chase', 'order.placed')
    const workflowId = new URL(page.url()).pathname.split('/').pop() ?? ''
    await selectStep(page, 'Trigger: order.placed')

    await page.getByRole('button', { name: 'Add step after' }).click()
    let dialog = page.getByRole('dialog')
    await pickOption(page, 'Step type', 'Wait for event')
    await dialog.getByRole('combobox', { name: 'Event to wait for' }).fill('order.paid')
    await dialog.getByRole('checkbox', { name: /Give up after a timeout/ }).check()
    await dialog.getByRole('textbox', { name: 'Timeout after' }).fill('2')
    await dialog.getByRole('button', { name: 'Add step' }).click()
    await page.getByRole('heading', { name: 'Wait for event', level: 2 }).waitFor()

    await page.getByRole('button', { name: 'Add step on event' }).click()
    dialog = page.getByRole('dialog')
    await pickOption(page, 'Step type', 'Webhook')
    await dialog.getByRole('textbox', { name: 'URL' }).fill('https://hooks.example/paid/{{contact.id}}')
    await pickOption(page, 'Method', 'PUT')
    await dialog.getByRole('textbox', { name: 'Headers' }).fill('{"X-Token": "abc"}')
    await dialog.getByRole('button', { name: 'Add step' }).click()
    await page.getByRole('heading', { name: 'Webhook', level: 2 }).waitFor()
    await page.getByRole('button', { name: 'Add step after' }).click()
    await pickOption(page, 'Step type', 'Exit')
    await page.getByRole('dialog').getByRole('textbox', { name: 'Exit reason' }).fill('paid')
    await page.getByRole('dialog').getByRole('button', { name: 'Add step' }).click()
    await page.getByRole('heading', { name: 'Exit', level: 2 }).waitFor()

    await selectStep(page, 'Wait for event')
    await page.getByRole('button', { name: 'Add step on timeout' }).click()
    dialog = page.getByRole('dialog')
    await pickOption(page, 'Step type', 'Update contact')
    await dialog.getByRole('textbox', { name: 'Data to set' }).fill('{"lapsed": true')
    expect(await dialog.textContent()).toContain('Not valid JSON yet')
    await dialog.getByRole('textbox', { name: 'Data to set' }).fill('{"lapsed": true}')
    await pickOption(page, 'Subscription', 'Unsubscribe')
    await dialog.getByRole('button', { name: 'Add step' }).click()
    await page.getByRole('heading', { name: 'Update contact', level: 2 }).waitFor()

    const response = await fetch(`${server.url}/workflows/${workflowId}`, {
      headers: { authorization: `Bearer ${key}` },
    })
    type Step = { name: string; type: string; config: Record<string, unknown>; outgoingTransitions: unknown[] }
    const steps = ((await response.json()) as { steps: Step[] }).steps
    const byName = new Map(steps.map((step) => [step.name, step]))
    expect(byName.get('Wait for event')?.config).toEqual({ eventName: 'order.paid', timeout: 172_800 })
    expect(byName.get('Wait for event')?.outgoingTransitions).toHaveLength(2)
    expect(byName.get('Webhook')?.config).toEqual({
      url: 'https://hooks.example/paid/{{contact.id}}',
      method: 'PUT',
      headers: { 'X-Token': 'abc' },
    })
    expect(byName.get('Exit')?.config).toEqual({ reason: 'paid' })
    expect(byName.get('Update contact')?.config).toEqual({
      updates: { lapsed: true },
      subscriptionAction: 'unsubscribe',
    })
  })
})
