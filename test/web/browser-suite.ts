import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { ensureWebBuild, findChromium, launchBrowser } from './browser.js'

/** What a browser test works with: the real server, and a fresh page (its own cookies) for each test. */
export type BrowserTest = { readonly server: TestServer; readonly page: Page }

/**
 * A describe block of browser tests in Debian's chromium against a server on a fresh database, skipped (and named
 * so) without chromium; a failed test leaves a screenshot of its page in the temp folder.
 */
export function browserSuite(title: string, body: (test: BrowserTest) => void): void {
  const chromiumPath = findChromium()
  const suite = chromiumPath ? describe : describe.skip
  const name = chromiumPath ? `${title} in chromium` : `${title} in chromium (skipped: no chromium binary found)`
  // Each test drives a real browser through several pages on a shared 2-core machine.
  suite(name, { timeout: 240_000 }, () => {
    let server: TestServer | undefined
    let browser: Browser | undefined
    let context: BrowserContext | undefined
    let page: Page | undefined
    const need = <T>(value: T | undefined, what: string): T => {
      if (value === undefined) throw new Error(`${what} is not ready: use it inside a test`)
      return value
    }

    beforeAll(async () => {
      await ensureWebBuild()
      server = await startTestServer()
      browser = await launchBrowser(chromiumPath ?? '')
    }, 180_000)
    afterAll(async () => {
      await browser?.close()
      await server?.close()
    })
    beforeEach(async () => {
      context = await need(browser, 'the browser').newContext({ viewport: { width: 1280, height: 900 } })
      page = await context.newPage()
    })
    afterEach(async ({ task }) => {
      if (task.result?.state === 'fail') {
        const file = path.join(tmpdir(), `mailroom-web-${task.name.slice(0, 40)}.png`)
        await page?.screenshot({ path: file }).catch(() => {})
      }
      await context?.close()
    })

    body({
      get server() {
        return need(server, 'the server')
      },
      get page() {
        return need(page, 'the page')
      },
    })
  })
}
