import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { fieldList, ImportView } from '../../src/modules/contacts/schemas.js'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { browserSession, fetchApi, startProject } from './flows.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const timeout = 240_000

/** 300 data rows after the header: three of them bad (invalid, missing and unparseable `subscribed`). */
function csvWithBadRows(): { csv: string; bad: { row: number; email: string | null; message: string }[] } {
  const lines = ['email,subscribed,plan,age']
  for (let i = 0; i < 300; i++)
    lines.push(`buyer${i}@import.example,${i % 2 === 0},${i % 3 ? 'pro' : 'free'},${20 + (i % 50)}`)
  // Spreadsheet rows: the header is row 1, so data row i is row i + 2.
  lines[11] = 'not-an-address,true,pro,30'
  lines[101] = ',true,free,31'
  lines[201] = 'maybe@import.example,maybe,pro,32'
  return {
    csv: `${lines.join('\n')}\n`,
    bad: [
      { row: 12, email: 'not-an-address', message: 'Invalid email address' },
      { row: 102, email: null, message: 'Missing email address' },
      { row: 202, email: 'maybe@import.example', message: 'subscribed must be true or false' },
    ],
  }
}

suite(chromiumPath ? 'contacts in chromium' : 'contacts in chromium (skipped: no chromium)', { timeout }, () => {
  const session = browserSession()

  it('imports a CSV: the bar follows the job to 100 %, and the totals and row errors are the API’s', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Import')
    const { csv, bad } = csvWithBadRows()

    await page.getByRole('link', { name: 'Contacts' }).click()
    await page.getByRole('link', { name: 'Import CSV' }).click()
    await page.getByRole('heading', { name: 'Import contacts' }).waitFor()
    // Every value the bar shows, recorded in the page as it changes.
    await page.evaluate(`
      window.progressSeen = []
      new MutationObserver(() => {
        const bar = document.querySelector('[role="progressbar"]')
        const value = Number(bar?.getAttribute('aria-valuenow'))
        if (bar && window.progressSeen.at(-1) !== value) window.progressSeen.push(value)
      }).observe(document.body, { subtree: true, childList: true, attributes: true })
    `)
    await page.locator('input[type="file"]').setInputFiles({
      name: 'buyers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    })
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 60_000 })

    const bar = page.getByRole('progressbar', { name: 'Import progress' })
    expect(await bar.getAttribute('aria-valuenow')).toBe('100')
    const seen = (await page.evaluate('window.progressSeen')) as number[]
    expect(seen.at(-1)).toBe(100)
    expect(seen).toEqual([...seen].sort((a, b) => a - b))

    const jobId = new URL(page.url()).searchParams.get('job') ?? ''
    const job = await fetchApi<ImportView>(server.url, key, 'GET', `/contacts/import/${jobId}`)
    expect(job.body).toMatchObject({ state: 'completed', totalRows: 300, created: 297, updated: 0, failed: 3 })
    const totals = await page.getByRole('list', { name: 'Import totals' }).getByRole('listitem').allInnerTexts()
    expect(totals.map((text) => text.replace(/\s+/g, ' ').toLowerCase())).toEqual([
      `rows ${job.body.totalRows}`,
      `created ${job.body.created}`,
      `updated ${job.body.updated}`,
      `failed ${job.body.failed}`,
    ])
    const errorRows = await page
      .getByRole('table', { name: 'Rows not imported' })
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)))
    expect(job.body.errors).toEqual(bad)
    expect(errorRows).toEqual(job.body.errors.map((error) => [String(error.row), error.email ?? '—', error.message]))

    // The contacts list counts the new contacts; the fields page shows the CSV's columns with the API's coverage.
    await page.getByRole('link', { name: 'All contacts' }).click()
    await page.getByText('297 contacts').waitFor()
    await page.getByRole('link', { name: 'Fields' }).click()
    const fields = await fetchApi<z.infer<typeof fieldList>>(server.url, key, 'GET', '/contacts/fields')
    const plan = fields.body.fields.find((field) => field.field === 'plan')
    expect(plan).toMatchObject({ type: 'string', count: 297, coverage: 100 })
    const planRow = page.getByRole('row').filter({ hasText: 'data.plan' })
    await planRow.waitFor()
    const rowText = async (row: typeof planRow) => (await row.innerText()).replace(/\s+/g, ' ').toLowerCase()
    expect(await rowText(planRow)).toBe('data.plan string custom 297 100% delete…')
    const ageRow = page.getByRole('row').filter({ hasText: 'data.age' })
    expect(await rowText(ageRow)).toBe('data.age number custom 297 100% delete…')

    // Deleting a field takes it off every contact, after a confirmation that counts them.
    await page.getByRole('button', { name: 'Delete data.age' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete the field data.age?' })
    await dialog.getByText('No segment, campaign or workflow refers to it.').waitFor()
    expect(await dialog.innerText()).toContain('297 contacts lose this value')
    await dialog.getByRole('button', { name: 'Delete field' }).click()
    await page.getByText('Removed data.age from 297 contacts').waitFor()
    await ageRow.waitFor({ state: 'detached' })
    const after = await fetchApi<z.infer<typeof fieldList>>(server.url, key, 'GET', '/contacts/fields')
    expect(after.body.fields.map((field) => field.field)).not.toContain('age')
  })

  it('unsubscribes a selection, adds it to a static segment and, after a confirmation, deletes it', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Bulk')
    const ids: Record<string, string> = {}
    for (const name of ['ann', 'ben', 'cid', 'dot']) {
      const created = await fetchApi<{ id: string }>(server.url, key, 'POST', '/contacts', {
        email: `${name}@bulk.example`,
        subscribed: true,
      })
      ids[name] = created.body.id
    }
    const segment = await fetchApi<{ id: string }>(server.url, key, 'POST', '/segments', {
      name: 'VIPs',
      type: 'STATIC',
      condition: { logic: 'AND', groups: [] },
    })
    expect(segment.status).toBe(201)
    const subscribed = async (name: string) =>
      (await fetchApi<{ subscribed: boolean }>(server.url, key, 'GET', `/contacts/${ids[name]}`)).body.subscribed

    await page.getByRole('link', { name: 'Contacts' }).click()
    await page.getByRole('checkbox', { name: 'Select ann@bulk.example' }).check()
    await page.getByRole('checkbox', { name: 'Select ben@bulk.example' }).check()
    await page.getByText('2 selected').waitFor()
    await page.getByRole('button', { name: 'Unsubscribe' }).click()
    await page.getByText('Unsubscribed 2 of 2 contacts').waitFor()
    expect([await subscribed('ann'), await subscribed('ben'), await subscribed('cid')]).toEqual([false, false, true])
    const table = page.getByRole('table', { name: 'Contacts' })
    await expect.poll(() => table.getByText('Unsubscribed', { exact: true }).count()).toBe(2)

    // Adding the selection to a static segment: the API then lists exactly those members.
    await page.getByRole('checkbox', { name: 'Select ann@bulk.example' }).check()
    await page.getByRole('checkbox', { name: 'Select dot@bulk.example' }).check()
    await page.getByRole('combobox', { name: 'Static segment' }).click()
    await page.getByRole('option', { name: 'VIPs' }).click()
    await page.getByRole('button', { name: 'Add to segment' }).click()
    await page.getByText('Added 2 contacts to VIPs').waitFor()
    const members = await fetchApi<{ data: { email: string }[] }>(
      server.url,
      key,
      'GET',
      `/segments/${segment.body.id}/contacts`,
    )
    expect(members.body.data.map((member) => member.email).sort()).toEqual(['ann@bulk.example', 'dot@bulk.example'])

    await page.getByRole('checkbox', { name: 'Select cid@bulk.example' }).check()
    await page.getByRole('button', { name: 'Delete…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete 1 contact?' })
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect((await fetchApi(server.url, key, 'GET', `/contacts/${ids.cid}`)).status).toBe(200)
    await page.getByRole('button', { name: 'Delete…' }).click()
    await dialog.getByRole('button', { name: 'Delete 1 contact' }).click()
    await page.getByText('Deleted 1 of 1 contacts').waitFor()
    expect((await fetchApi(server.url, key, 'GET', `/contacts/${ids.cid}`)).status).toBe(404)
    await expect.poll(() => table.getByRole('link').allInnerTexts()).not.toContain('cid@bulk.example')
  })

  it('the import, bulk selection and fields pages pass an axe check', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Contacts audit')
    const audit = accessibilityAudit(page)
    await fetchApi(server.url, key, 'POST', '/contacts', { email: 'axe@audit.example', data: { plan: 'pro' } })
    await page.getByRole('link', { name: 'Contacts' }).click()
    await page.getByRole('checkbox', { name: 'Select axe@audit.example' }).check()
    await page.getByRole('region', { name: 'Bulk actions' }).waitFor()
    await audit.check('contacts with a selection')
    await page.getByRole('link', { name: 'Import CSV' }).click()
    await page.locator('input[type="file"]').setInputFiles({
      name: 'few.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email,plan\nok@audit.example,pro\nbad,free\n'),
    })
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByRole('table', { name: 'Rows not imported' }).waitFor({ timeout: 60_000 })
    await audit.check('import (finished, with errors)')
    await page.goto(`${server.url}/app/contacts/fields`)
    await page.getByRole('table', { name: 'Contact fields' }).waitFor()
    await audit.check('contact fields')
    await page.getByRole('button', { name: 'Delete data.plan' }).click()
    await page.getByRole('dialog').getByText('No segment, campaign or workflow refers to it.').waitFor()
    await audit.check('delete field dialog')
    audit.expectClean()
  })
})
