import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { accessibilityAudit, findChromium } from './browser.js'
import { addDomain, browserSession, fetchApi, startProject } from './flows.js'

const chromiumPath = findChromium()
const suite = chromiumPath ? describe : describe.skip
const timeout = 240_000

// A 1×1 PNG.
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

type ApiError = { error: { code: string; message: string; details: { line: number; column: number } } }

async function newTemplate(page: Page, domain: string, name: string) {
  await page.getByRole('link', { name: 'Templates' }).click()
  await page.getByRole('link', { name: 'New template' }).first().click()
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name)
  await page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Hello {{ email ?? "there" }}')
  await page.getByRole('textbox', { name: 'From address', exact: true }).fill(`hello@${domain}`)
}

const body = (page: Page) => page.getByRole('textbox', { name: 'HTML body', exact: true })
const previewFrame = (page: Page) => page.frameLocator('iframe[title="Preview of the template body"]')

suite(chromiumPath ? 'templates in chromium' : 'templates in chromium (skipped: no chromium)', { timeout }, () => {
  const session = browserSession()

  it('marks a Liquid syntax error at the line the API names, and shows the text alternative once it parses', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Liquid')
    await addDomain(page, 'liquid.example')
    await newTemplate(page, 'liquid.example', 'Plans')
    const broken = '<p>one</p>\n<p>two</p>\n{% if plan %}\n<p>pro</p>'
    await body(page).fill(broken)

    const api = await fetchApi<ApiError>(server.url, key, 'POST', '/templates/preview', { body: broken })
    expect(api.status).toBe(400)
    expect(api.body.error.details.line).toBe(3)
    // The mark sits on the third line, with the API's message under the editor.
    const mark = page.locator('.cm-line').nth(2).locator('.cm-lintRange-error')
    await mark.waitFor()
    expect(await page.locator('.cm-lintRange-error').count()).toBe(1)
    // The gutter's marker is level with the third line (measured together: the editor may scroll in between).
    const offset = await page.evaluate(`(() => {
      const marker = document.querySelector('.cm-lint-marker-error').getBoundingClientRect()
      const line = document.querySelectorAll('.cm-line')[2].getBoundingClientRect()
      return Math.abs(marker.top + marker.height / 2 - (line.top + line.height / 2))
    })()`)
    expect(offset).toBeLessThan(4)
    expect(await page.getByRole('alert').filter({ hasText: 'syntax error' }).innerText()).toBe(api.body.error.message)
    expect(await body(page).getAttribute('aria-invalid')).toBe('true')

    // Closing the tag clears the mark; the plain-text alternative is the API's.
    await body(page).press('Control+End')
    // Inserted as one piece of text: typed key by key, the editor would close each tag and bracket as it opens.
    await page.keyboard.insertText('\n{% endif %}<p><a href="https://liquid.example/pricing">Pricing</a></p>')
    await mark.waitFor({ state: 'detached' })
    const fixed = `${broken}\n{% endif %}<p><a href="https://liquid.example/pricing">Pricing</a></p>`
    const rendered = await fetchApi<{ text: string; subject: string }>(server.url, key, 'POST', '/templates/preview', {
      subject: 'Hello {{ email ?? "there" }}',
      body: fixed,
    })
    expect(rendered.body.text).toBe('one\n\ntwo\n\nPricing [https://liquid.example/pricing]')
    await expect.poll(() => page.getByTestId('plain-text').innerText()).toBe(rendered.body.text)
    expect(await page.getByTestId('preview-subject').innerText()).toBe('Hello there')
    expect(await previewFrame(page).locator('a').getAttribute('href')).toBe('https://liquid.example/pricing')
  })

  it('keeps the last good render in the preview while the draft has a Liquid error', async () => {
    const { page, server } = session
    await startProject(page, server.url, uniqueEmail(), 'Last good')
    await addDomain(page, 'last-good.example')
    await newTemplate(page, 'last-good.example', 'Drafts')
    const preview = page.getByRole('region', { name: 'Preview' })
    await expect.poll(() => previewFrame(page).locator('body').innerText()).toContain('Write your email here.')
    // Pasted over the example, a draft that does not parse shows no preview: the example is not the user's.
    await body(page).fill('<p>Pasted {% if %}</p>')
    await preview.getByText('The draft does not render yet: fix the error to see it.').waitFor()
    expect(await previewFrame(page).locator('body').innerText()).toBe('')

    await body(page).fill('<p>Version one</p>')
    await expect.poll(() => previewFrame(page).locator('body').innerText()).toBe('Version one')
    await body(page).fill('<p>Version two for {{ data.plan ?? "everyone" }}</p>')
    await expect.poll(() => previewFrame(page).locator('body').innerText()).toBe('Version two for everyone')

    // An unclosed tag: the editor marks it, and the preview still shows version two, rendered, with a note.
    await body(page).fill('<p>Version two for {{ data.plan ?? "everyone" }}</p>\n{% if data.plan %}<p>Pro</p>')
    await page.locator('.cm-lintRange-error').waitFor()
    await preview.getByText('The draft does not render; the last version that did is shown.').waitFor()
    expect(await previewFrame(page).locator('body').innerText()).toBe('Version two for everyone')
    expect(await page.getByTestId('plain-text').innerText()).toBe('Version two for everyone')
    expect(await page.getByTestId('preview-subject').innerText()).toBe('Hello there')

    // Fixed, the preview follows the draft again.
    await body(page).fill(
      '<p>Version two for {{ data.plan ?? "everyone" }}</p>\n{% if data.plan %}<p>Pro</p>{% endif %}',
    )
    await page.locator('.cm-lintRange-error').waitFor({ state: 'detached' })
    await expect.poll(() => previewFrame(page).locator('body').innerText()).toBe('Version two for everyone')
    expect(await preview.innerText()).not.toContain('does not render')
  })

  it('uploads an image into the body at the cursor, and the preview shows it', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Images')
    await addDomain(page, 'images.example')
    await newTemplate(page, 'images.example', 'Banner')
    await body(page).fill('<h1>Sale</h1>\n<p>Now on.</p>')
    // Cursor at the end of the first line: the image goes between the heading and the paragraph.
    await page.locator('.cm-line').first().click()
    await body(page).press('End')
    const chooser = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Insert image…' }).click()
    await (await chooser).setFiles({ name: 'banner.png', mimeType: 'image/png', buffer: png })

    const image = previewFrame(page).locator('img')
    await image.waitFor({ state: 'attached' })
    const uploads = await fetchApi<{ data: { url: string }[] }>(server.url, key, 'GET', '/uploads')
    expect(uploads.body.data).toHaveLength(1)
    const url = uploads.body.data[0]?.url ?? ''
    expect(await image.getAttribute('src')).toBe(url)
    expect(await image.getAttribute('alt')).toBe('banner')
    const lines = await page.locator('.cm-line').allInnerTexts()
    expect(lines).toEqual([`<h1>Sale</h1><img src="${url}" alt="banner" width="1" height="1" />`, '<p>Now on.</p>'])

    // From the keyboard: the editor scrolled the page, and a click right after Playwright scrolled the button back
    // into view reached the preview frame that stood there before the scroll (seen once the capture-mode banner
    // moved the page down: the mousedown never reached the document, the frame took the focus, nothing was saved).
    await page.getByRole('button', { name: 'Create template' }).press('Enter')
    await page.getByRole('heading', { name: 'Edit Banner' }).waitFor()
    const saved = await fetchApi<{ data: { body: string }[] }>(server.url, key, 'GET', '/templates')
    expect(saved.body.data[0]?.body).toContain(`<img src="${url}"`)
  })

  it('inserts a contact field from the variable help, previews it as a contact, saves, shows usage and duplicates', async () => {
    const { page, server } = session
    const key = await startProject(page, server.url, uniqueEmail(), 'Variables')
    await fetchApi(server.url, key, 'POST', '/contacts', { email: 'v@variables.example', data: { plan: 'pro' } })
    await addDomain(page, 'variables.example')
    await newTemplate(page, 'variables.example', 'Welcome')
    await body(page).fill('<p>Your plan: </p>')
    await page.locator('.cm-line').first().click()
    await body(page).press('End')
    await body(page).press('ArrowLeft')
    await body(page).press('ArrowLeft')
    await body(page).press('ArrowLeft')
    await body(page).press('ArrowLeft')
    await page.getByRole('button', { name: /^Insert \{\{ data\.plan \}\}/ }).click()
    expect(await page.locator('.cm-line').first().innerText()).toBe('<p>Your plan: {{ data.plan }}</p>')
    // Rendered for a chosen contact, with its data; without one, the variable is empty.
    await expect.poll(() => page.getByTestId('plain-text').innerText()).toBe('Your plan:')
    await page.getByRole('combobox', { name: 'Preview as' }).fill('v@var')
    await page.getByRole('option', { name: 'v@variables.example' }).click()
    await expect.poll(() => page.getByTestId('plain-text').innerText()).toBe('Your plan: pro')
    expect(await previewFrame(page).locator('p').innerText()).toBe('Your plan: pro')

    // By keyboard: the editor scrolls its cursor into view a frame after the insert, which can move a mouse
    // click's target away from the button between aiming and clicking.
    await page.getByRole('button', { name: 'Create template' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Edit Welcome' }).waitFor()
    await page.getByText('No campaign or workflow uses this template.').waitFor()
    await page.getByRole('button', { name: 'Duplicate' }).click()
    await page.getByRole('heading', { name: 'Edit Welcome (copy)' }).waitFor()
    const list = await fetchApi<{ data: { name: string; body: string }[] }>(server.url, key, 'GET', '/templates')
    expect(list.body.data.map((template) => template.name).sort()).toEqual(['Welcome', 'Welcome (copy)'])
    expect(list.body.data.every((template) => template.body === '<p>Your plan: {{ data.plan }}</p>')).toBe(true)
  })

  it('the editor passes an axe check, with a syntax error shown and once saved', async () => {
    const { page, server } = session
    await startProject(page, server.url, uniqueEmail(), 'Editor audit')
    await addDomain(page, 'audit.example')
    const audit = accessibilityAudit(page)
    await newTemplate(page, 'audit.example', 'Audit')
    // The starting body uses a `??` fallback, which Liquid's grammar highlights as invalid: its colour must pass too.
    await page.locator('.cm-line').filter({ hasText: '??' }).waitFor()
    await audit.check('new template')
    await body(page).fill('<p>{{ email </p>')
    await page.locator('.cm-lintRange-error').waitFor()
    await audit.check('template editor with a syntax error')
    await body(page).fill('<p>{{ email }}</p>')
    await page.locator('.cm-lintRange-error').waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Create template' }).click()
    await page.getByRole('heading', { name: 'Edit Audit' }).waitFor()
    await page.getByText('No campaign or workflow uses this template.').waitFor()
    await audit.check('template editor, saved')
    audit.expectClean()
  })
})
