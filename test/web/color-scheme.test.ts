import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { uniqueEmail } from '../helpers/factories.js'
import { findChromium } from './browser.js'
import { appUrl, browserSession, startProject } from './flows.js'

const chromiumPath = findChromium()
// Without chromium (a developer machine) the browser tests are skipped; .ci/run installs it, so CI runs them.
const suite = chromiumPath ? describe : describe.skip
const name = chromiumPath
  ? 'colour scheme in chromium'
  : 'colour scheme in chromium (skipped: no chromium binary found)'

/** A computed style property of the first element matching the selector. A script: no DOM types here. */
function styleOf(page: Page, selector: string, property: string): Promise<string> {
  return page.evaluate(
    `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).${property}`,
  ) as Promise<string>
}

/** WCAG's relative luminance of a computed `rgb(r, g, b)` colour: 0 for black, 1 for white. */
function luminance(color: string): number {
  const channels = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((value) => Number(value) / 255)
  if (channels.length !== 3) throw new Error(`not an rgb() colour: ${color}`)
  const [red, green, blue] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
  return 0.2126 * (red ?? 0) + 0.7152 * (green ?? 0) + 0.0722 * (blue ?? 0)
}

const isDark = (color: string) => luminance(color) < 0.1
const isLight = (color: string) => luminance(color) > 0.4

/** WCAG's contrast ratio of two computed colours, from 1 to 21. */
function contrast(one: string, other: string): number {
  const [lighter, darker] = [luminance(one), luminance(other)].sort((a, b) => b - a)
  return ((lighter ?? 0) + 0.05) / ((darker ?? 0) + 0.05)
}

suite(name, { timeout: 240_000 }, () => {
  const session = browserSession()
  const scheme = () => session.page.locator('html').getAttribute('data-mantine-color-scheme')
  const darkMode = () => session.page.getByRole('switch', { name: 'Dark mode' })

  it('follows the system setting until the switch overrides it, and remembers the choice across a reload', async () => {
    const { page, server } = session
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.goto(appUrl(server.url, '/login'))
    await darkMode().waitFor()
    expect(await scheme()).toBe('dark')
    expect(await darkMode().isChecked()).toBe(true)
    expect(isDark(await styleOf(page, 'body', 'backgroundColor'))).toBe(true)

    await startProject(page, server.url, uniqueEmail(), 'Schemes')
    expect(await scheme()).toBe('dark')
    // The system's setting changes: the open page follows.
    await page.emulateMedia({ colorScheme: 'light' })
    await expect.poll(scheme).toBe('light')
    expect(await darkMode().isChecked()).toBe(false)
    expect(isLight(await styleOf(page, 'body', 'backgroundColor'))).toBe(true)

    // The switch overrides the system, and the choice outlives a reload.
    await darkMode().check()
    await expect.poll(scheme).toBe('dark')
    expect(isDark(await styleOf(page, 'body', 'backgroundColor'))).toBe(true)
    await page.reload()
    await darkMode().waitFor()
    expect(await scheme()).toBe('dark')
    expect(await darkMode().isChecked()).toBe(true)

    // Choosing what the system says again means following the system from then on.
    await darkMode().uncheck()
    await expect.poll(scheme).toBe('light')
    await page.emulateMedia({ colorScheme: 'dark' })
    await expect.poll(scheme).toBe('dark')
    await page.reload()
    await darkMode().waitFor()
    expect(await scheme()).toBe('dark')
  })

  it('draws the charts and the template editor in dark colours in the dark scheme', async () => {
    const { page, server } = session
    await page.emulateMedia({ colorScheme: 'dark' })
    await startProject(page, server.url, uniqueEmail(), 'Dark charts')

    // A new project's chart: its axes and legend, over days without emails.
    const tick = '.recharts-cartesian-axis-tick-value'
    const chartPaper = '.mantine-Paper-root:has(.recharts-wrapper)'
    await page.goto(appUrl(server.url, '/analytics'))
    await page.locator(tick).first().waitFor()
    const paper = await styleOf(page, chartPaper, 'backgroundColor')
    expect(isDark(paper)).toBe(true)
    expect(contrast(await styleOf(page, tick, 'fill'), paper)).toBeGreaterThanOrEqual(4.5)
    expect(contrast(await styleOf(page, '.recharts-legend-item-text', 'color'), paper)).toBeGreaterThanOrEqual(4.5)

    await page.getByRole('link', { name: 'Templates' }).click()
    await page.getByRole('link', { name: 'New template' }).first().click()
    await page.locator('.cm-editor').waitFor()
    const editor = await styleOf(page, '.cm-editor', 'backgroundColor')
    expect(isDark(editor)).toBe(true)
    expect(contrast(await styleOf(page, '.cm-gutters', 'color'), editor)).toBeGreaterThanOrEqual(4.5)

    // Switched to light on the page: the editor and, on the way back, the charts follow.
    await darkMode().uncheck()
    await expect.poll(async () => isLight(await styleOf(page, '.cm-editor', 'backgroundColor'))).toBe(true)
    await page.getByRole('link', { name: 'Analytics' }).click()
    await page.locator(tick).first().waitFor()
    expect(isLight(await styleOf(page, chartPaper, 'backgroundColor'))).toBe(true)
    expect(isDark(await styleOf(page, tick, 'fill'))).toBe(true)
  })
})
