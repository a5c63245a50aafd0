import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import AxeBuilder from '@axe-core/playwright'
import { type BrowserServer, chromium, type Page } from 'playwright-core'
import { expect } from 'vitest'
import { dashboardBuild, isBuilt } from '../../scripts/build-if-stale.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const webDir = path.join(root, 'web')

/** Debian's chromium (`apt-get install chromium`): its real binary, or the launcher script; CHROMIUM_PATH wins. */
export function findChromium(): string | undefined {
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/lib/chromium/chromium',
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
  ]
  return candidates.find((candidate): candidate is string => Boolean(candidate && existsSync(candidate)))
}

const builtIsFresh = () => isBuilt(dashboardBuild)

/**
 * The server serves web/dist (what `npm run build` makes). Tests run from the sources without a build step, so the
 * dashboard is built here when web/dist is missing or older than its sources. Two runs at once (the suite and
 * `npm run screenshots`, say) may both find it stale: a lock directory (mkdir is atomic) lets one of them build
 * while the other waits for its result.
 */
export async function ensureWebBuild(): Promise<void> {
  const lock = path.join(webDir, '.build-lock')
  const deadline = Date.now() + 10 * 60_000
  while (!builtIsFresh()) {
    try {
      mkdirSync(lock)
    } catch {
      // A lock left by a crashed run is older than any real build.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > 5 * 60_000) rmSync(lock, { force: true, recursive: true })
      if (Date.now() > deadline) throw new Error('timed out waiting for another run to build the dashboard')
      await new Promise((resolve) => setTimeout(resolve, 500))
      continue
    }
    try {
      if (!builtIsFresh()) {
        // A child process: vitest sets NODE_ENV=test, which would make vite bundle React's development build.
        execFileSync(
          process.execPath,
          [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts'],
          { cwd: root, env: { ...process.env, NODE_ENV: 'production' }, stdio: 'pipe' },
        )
      }
    } finally {
      rmSync(lock, { force: true, recursive: true })
    }
  }
}

/** One chromium for the whole web tier: test files connect to its wsEndpoint. */
export async function launchBrowserServer(executablePath: string): Promise<BrowserServer> {
  // --no-sandbox: CI runs as root, where chromium refuses its own sandbox.
  return chromium.launchServer({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
}

/**
 * A dialog fading in is half transparent, and its text then fails the contrast rule: audit what has settled (a
 * spinner's endless animation aside). A dialog just mounted may not have started its transition yet, so every open
 * dialog must also be fully opaque, up to the root.
 */
const settled = `document.getAnimations().every((animation) =>
    animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity) &&
  [...document.querySelectorAll('[role="dialog"]')].every((dialog) => {
    for (let element = dialog; element; element = element.parentElement) {
      if (Number(getComputedStyle(element).opacity) < 1) return false
    }
    return true
  })`

/**
 * Resolves once the page has settled, checked on every frame. Not page.waitForFunction: it evals its predicate in
 * the page, which the dashboard's Content-Security-Policy (script-src 'self') refuses, as it should.
 */
const untilSettled = `new Promise((resolve) => {
  const check = () => (${settled}) ? resolve(true) : requestAnimationFrame(check)
  check()
})`

/** From now on, notes in the page whether a CSS transition or animation starts (a toast closing by itself, say). */
const watchMotion = `(() => {
  window.mailroomAuditMoved = false
  if (window.mailroomAuditWatching) return
  window.mailroomAuditWatching = true
  for (const type of ['transitionstart', 'animationstart'])
    document.addEventListener(type, () => { window.mailroomAuditMoved = true }, true)
})()`

/** Serious or critical axe violations on the page as it is now, one readable line (and a few targets) each. */
async function seriousViolations(page: Page): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    await page.evaluate(untilSettled)
    await page.evaluate(watchMotion)
    // The email previews are sandboxed frames without scripts: the user's HTML, not the dashboard, and axe cannot
    // run inside them (waiting for an answer from one stalled the audit), so they are left out.
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .exclude('iframe[sandbox]')
      .analyze()
    // Something began to fade while axe ran, which then saw it half transparent: audit the settled page again.
    // A page that never holds still is reported as the last audit saw it.
    if (attempt < 5 && (await page.evaluate('window.mailroomAuditMoved'))) continue
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.help}\n    ${violation.nodes
            .slice(0, 5)
            .map((node) => node.target.join(' '))
            .join('\n    ')}`,
      )
  }
}

/**
 * Checks page after page and reports every page's violations together at the end. Each page also has exactly one
 * h1 (axe's own rule for it is a best practice of moderate impact, outside the audit's tags).
 */
export function accessibilityAudit(page: Page) {
  const found: Record<string, string[]> = {}
  return {
    async check(name: string) {
      const violations = await seriousViolations(page)
      const headings = await page.locator('h1').allTextContents()
      if (headings.length !== 1) violations.push(`one h1: found ${JSON.stringify(headings)}`)
      if (violations.length > 0) found[name] = violations
    },
    expectClean() {
      expect(found).toEqual({})
    },
  }
}
