import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { addDomain, addPlanContacts, appUrl, browserSession, callApi, chooseOption, startProject } from './flows.js'

type Segment = { id: string; name: string; memberCount: number; trackMembership: boolean }

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath ? 'segments in chromium' : 'segments in chromium (skipped: no chromium binary found)'

suite(name, { timeout: 240_000 }, () => {
  const test = browserSession()

  /** A signed-in project with contacts: three on the pro plan (one unsubscribed) and two on the free one. */
  async function projectWithContacts(projectName: string): Promise<string> {
    const key = await startProject(test.page, test.server.url, uniqueEmail(), projectName)
    await addPlanContacts(test.server.url, key)
    return key
  }

  it('builds a dynamic segment whose live count and saved member list equal the API’s', async () => {
    const key = await projectWithContacts('Builder')
    const audit = accessibilityAudit(test.page)
    await test.page.getByRole('link', { name: 'Segments' }).click()
    await test.page.getByText('No segments yet').waitFor()
    await audit.check('segments (empty)')
    await test.page.getByRole('link', { name: 'New segment' }).first().click()
    await test.page.getByRole('textbox', { name: 'Name', exact: true }).fill('Pro plan')

    // Group 1, filter 1: custom data `plan` is the text "pro".
    const filter = test.page.getByRole('group', { name: 'Group 1, filter 1' })
    await chooseOption(test.page, filter, 'Field type', 'Custom data')
    await filter.getByRole('combobox', { name: 'Data key' }).fill('plan')
    await test.page.keyboard.press('Escape')
    expect(await filter.getByRole('combobox', { name: 'Operator' }).inputValue()).toBe('is')
    await filter.getByRole('textbox', { name: 'Value', exact: true }).fill('pro')

    const condition = {
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
    }
    const expected = await callApi<{ total: number }>(test.server.url, key, 'POST', '/segments/preview', { condition })
    expect(expected.total).toBe(3)
    await expect.poll(() => test.page.getByTestId('segment-preview-count').textContent()).toBe(String(expected.total))
    const newest = test.page.getByRole('list', { name: 'Newest matching contacts' })
    await expect.poll(() => newest.getByRole('listitem').count()).toBe(3)

    // A filter the API refuses shows its message at that filter: custom data with no key.
    await test.page.getByRole('button', { name: 'Add filter' }).click()
    const second = test.page.getByRole('group', { name: 'Group 1, filter 2' })
    await chooseOption(test.page, second, 'Field type', 'Custom data')
    await expect.poll(() => second.textContent()).toMatch(/names no data key/)
    expect(await second.getByRole('combobox', { name: 'Data key' }).getAttribute('aria-invalid')).toBe('true')
    await audit.check('segment editor with an error')
    await test.page.getByRole('button', { name: 'Remove Group 1, filter 2' }).click()
    await expect.poll(() => test.page.getByTestId('segment-preview-count').textContent()).toBe('3')

    await test.page.getByRole('button', { name: 'Create segment' }).click()
    await test.page.getByRole('heading', { name: 'Pro plan' }).waitFor()
    const [saved] = await callApi<Segment[]>(test.server.url, key, 'GET', '/segments')
    expect(saved?.memberCount).toBe(3)
    const members = await callApi<{ total: number }>(test.server.url, key, 'GET', `/segments/${saved?.id}/contacts`)
    await expect
      .poll(() => test.page.getByTestId('segment-member-total').textContent())
      .toBe(`${members.total} contacts`)
    expect(await test.page.getByRole('table', { name: 'Segment members' }).getByRole('row').count()).toBe(4)
    await audit.check('segment page')

    // The entry/exit tracking switch saves at once.
    await test.page.getByRole('switch', { name: 'Track entries and exits' }).click({ force: true })
    await expect
      .poll(async () => (await callApi<Segment>(test.server.url, key, 'GET', `/segments/${saved?.id}`)).trackMembership)
      .toBe(true)

    // Editing loads the stored condition into the builder.
    await test.page.getByRole('link', { name: 'Edit' }).click()
    const loaded = test.page.getByRole('group', { name: 'Group 1, filter 1' })
    await expect.poll(() => loaded.getByRole('combobox', { name: 'Data key' }).inputValue()).toBe('plan')
    await test.page.getByRole('link', { name: 'Segments' }).click()
    await test.page.getByRole('table', { name: 'Segments' }).getByRole('link', { name: 'Pro plan' }).waitFor()
    await audit.check('segments')
    audit.expectClean()
  })

  it('counts groups joined by OR, an event within a span and a contact field as the API does', async () => {
    const key = await projectWithContacts('Groups')
    const tracked = await fetch(`${test.server.url}/v1/track`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'pro0@people.example', event: 'signed-up', data: {} }),
    })
    expect(tracked.status).toBe(200)
    await test.page.getByRole('link', { name: 'Segments' }).click()
    await test.page.getByRole('link', { name: 'New segment' }).first().click()

    const first = test.page.getByRole('group', { name: 'Group 1, filter 1' })
    await chooseOption(test.page, first, 'Field type', 'Event')
    await first.getByRole('combobox', { name: 'Event name' }).fill('signed-up')
    await test.page.keyboard.press('Escape')
    await chooseOption(test.page, first, 'Operator', 'happened within the last')
    await first.getByRole('textbox', { name: 'Amount' }).fill('2')
    await chooseOption(test.page, first, 'Unit', 'hours')

    await test.page.getByRole('button', { name: 'Add group' }).click()
    await test.page.getByText('any group', { exact: true }).click()
    const second = test.page.getByRole('group', { name: 'Group 2, filter 1' })
    await chooseOption(test.page, second, 'Field', 'Email')
    await chooseOption(test.page, second, 'Operator', 'contains')
    await second.getByRole('textbox', { name: 'Value', exact: true }).fill('free')

    const condition = {
      logic: 'OR',
      groups: [
        { filters: [{ field: 'event.signed-up', operator: 'triggeredWithin', value: 2, unit: 'hours' }] },
        { filters: [{ field: 'email', operator: 'contains', value: 'free' }] },
      ],
    }
    const expected = await callApi<{ total: number }>(test.server.url, key, 'POST', '/segments/preview', { condition })
    expect(expected.total).toBe(3)
    await expect.poll(() => test.page.getByTestId('segment-preview-count').textContent()).toBe('3')
    const audit = accessibilityAudit(test.page)
    await audit.check('segment editor with two groups')
    audit.expectClean()
  })

  it('manages a static segment’s members by address, and says why a segment in use cannot be deleted', async () => {
    const key = await projectWithContacts('Static')
    await addDomain(test.page, 'static.example')
    await test.page.getByRole('link', { name: 'Segments' }).click()
    await test.page.getByRole('link', { name: 'New segment' }).first().click()
    await test.page.getByRole('textbox', { name: 'Name', exact: true }).fill('Hand picked')
    await test.page.getByText('Static: chosen by hand').click()
    await test.page.getByRole('button', { name: 'Create segment' }).click()
    await test.page.getByRole('heading', { name: 'Hand picked' }).waitFor()
    await test.page.getByText('No members').waitFor()

    const emails = test.page.getByRole('textbox', { name: 'Email addresses' })
    // A refused address is named at the field as it was typed.
    await emails.fill('pro0@people.example, not-an-address')
    await test.page.getByRole('button', { name: 'Add members' }).click()
    await expect.poll(() => emails.getAttribute('aria-invalid')).toBe('true')
    expect(await test.page.getByText(/^not-an-address: /).count()).toBe(1)
    await emails.fill('pro0@people.example, free3@people.example\nnobody@people.example')
    await test.page.getByRole('button', { name: 'Add members' }).click()
    await expect
      .poll(() => test.page.getByRole('status').filter({ hasText: 'Added' }).textContent())
      .toContain('Added 2 contacts; not found: nobody@people.example.')
    await expect.poll(() => test.page.getByTestId('segment-member-total').textContent()).toBe('2 contacts')

    await emails.fill('free3@people.example')
    await test.page.getByRole('button', { name: 'Remove members' }).click()
    await expect
      .poll(() => test.page.getByRole('status').filter({ hasText: 'Removed' }).textContent())
      .toContain('Removed 1 contact.')
    await expect.poll(() => test.page.getByTestId('segment-member-total').textContent()).toBe('1 contact')
    const [segment] = await callApi<Segment[]>(test.server.url, key, 'GET', '/segments')
    const members = await callApi<{ data: { email: string }[] }>(
      test.server.url,
      key,
      'GET',
      `/segments/${segment?.id}/contacts`,
    )
    expect(members.data.map((contact) => contact.email)).toEqual(['pro0@people.example'])

    // A draft campaign uses the segment: deleting it is refused with the API's reason, shown in the dialog.
    await callApi(test.server.url, key, 'POST', '/campaigns', {
      name: 'Uses the segment',
      subject: 'Hi',
      body: '<p>Hi</p>',
      from: 'news@static.example',
      audienceType: 'SEGMENT',
      segmentId: segment?.id,
    })
    await test.page.getByRole('button', { name: 'Delete' }).click()
    const dialog = test.page.getByRole('dialog', { name: 'Delete “Hand picked”?' })
    await dialog.getByRole('button', { name: 'Delete segment' }).click()
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/campaign/i)
    expect((await callApi<Segment[]>(test.server.url, key, 'GET', '/segments')).length).toBe(1)
  })

  it('opens a segment page by address and shows it unchanged after a reload', async () => {
    const key = await projectWithContacts('Reload')
    const created = await callApi<Segment>(test.server.url, key, 'POST', '/segments', {
      name: 'Free plan',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'free' }] }] },
    })
    await test.page.goto(appUrl(test.server.url, `/segments/${created.id}`))
    await test.page.getByRole('heading', { name: 'Free plan' }).waitFor()
    await expect.poll(() => test.page.getByTestId('segment-member-total').textContent()).toBe('2 contacts')
  })
})
