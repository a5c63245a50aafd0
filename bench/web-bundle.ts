import { execSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { type Browser, chromium, type Page, type Request } from 'playwright-core'
import { percentile } from './lib/percentile.js'
import { reportResult } from './lib/result.js'
import { root, startBenchServer } from './lib/server.js'

/*
 * `npx tsx bench/web-bundle.ts [--loads 5] [--no-uncompressed]`: what the dashboard costs a first visit. From the
 * build (web/dist): each chunk's size raw, gzip and brotli (the copies the server sends), and the first download,
 * the files the shell names (its entry script, the entry's static imports it preloads, its styles). Then in
 * chromium, against the built server on a fresh database, with an empty cache each time: the log-in page until
 * its form can be used, then logging in until the Get started checklist shows, with the bytes each step
 * transferred (bodies as sent, and headers), its requests and the time it took. The median of `--loads` cold
 * loads is the headline; each is followed by one that accepts no encoding, as every visit was before the build
 * compressed the files.
 */

const { values } = parseArgs({
  options: { loads: { type: 'string', default: '5' }, 'no-uncompressed': { type: 'boolean', default: false } },
})
const loads = Number(values.loads)
const compareUncompressed = !values['no-uncompressed']
const dist = path.join(root, 'web/dist')
/** Issue #29's budget for the first page: log-in, then Get started. */
const firstPageBudgetBytes = 300_000

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(percentile(sorted, 0.5))
}

type Sizes = { raw: number; gzip: number | null; brotli: number | null }

function sizesOf(file: string): Sizes {
  const full = path.join(dist, file)
  const size = (copy: string) => (existsSync(copy) ? statSync(copy).size : null)
  return { raw: statSync(full).size, gzip: size(`${full}.gz`), brotli: size(`${full}.br`) }
}

/** Bytes a browser taking brotli (or only gzip) receives: the file itself when it has no smaller copy. */
const sent = (sizes: Sizes, encoding: 'gzip' | 'brotli') => sizes[encoding] ?? sizes.raw

function total(files: { sizes: Sizes }[]) {
  return {
    raw: files.reduce((sum, { sizes }) => sum + sizes.raw, 0),
    gzip: files.reduce((sum, { sizes }) => sum + sent(sizes, 'gzip'), 0),
    brotli: files.reduce((sum, { sizes }) => sum + sent(sizes, 'brotli'), 0),
  }
}

/** The build's chunks, and the files the shell makes every first visit download before anything shows. */
function readBuild() {
  const assets = readdirSync(path.join(dist, 'assets'))
    .filter((file) => !/\.(br|gz)$/.test(file))
    .map((file) => ({ file: `assets/${file}`, sizes: sizesOf(`assets/${file}`) }))
    .sort((a, b) => b.sizes.raw - a.sizes.raw)
  const shell = readFileSync(path.join(dist, 'index.html'), 'utf8')
  // <script src>, <link rel="modulepreload"> (the entry's static imports, as vite lists them) and stylesheets.
  const named = [...shell.matchAll(/(?:src|href)="\/app\/(assets\/[^"]+)"/g)].map((match) => match[1] ?? '')
  const firstDownload = [
    { file: 'index.html', sizes: sizesOf('index.html') },
    ...named.map((file) => ({ file, sizes: sizesOf(file) })),
  ]
  return {
    firstDownload: { ...total(firstDownload), files: firstDownload },
    // Everything else loads on the page that needs it.
    lazy: {
      ...total(assets.filter(({ file }) => !named.includes(file))),
      largest: assets.filter(({ file }) => !named.includes(file)).slice(0, 6),
    },
    all: { ...total(assets), chunks: assets.length },
  }
}

/** Debian's chromium, as test/web/browser.ts finds it; CHROMIUM_PATH wins. */
function findChromium(): string | undefined {
  return [
    process.env.CHROMIUM_PATH,
    '/usr/lib/chromium/chromium',
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
  ].find((candidate): candidate is string => Boolean(candidate && existsSync(candidate)))
}

type Transfer = { url: string; status: number; encoding: string | null; bytes: number }

/** Records every response the page receives, by the step that was under way when the page asked for it. */
function recordTransfers(page: Page) {
  let step = 'login'
  const stepOf = new Map<Request, string>()
  const finished: Promise<Transfer & { step: string }>[] = []
  const record = async (request: Request) => {
    const response = await request.response()
    const sizes = await request.sizes()
    return {
      step: stepOf.get(request) ?? step,
      url: request.url().replace(/^https?:\/\/[^/]+/, ''),
      status: response?.status() ?? 0,
      encoding: (await response?.headerValue('content-encoding')) ?? null,
      // The body as it came over the wire (compressed when it was), and the response's headers.
      bytes: sizes.responseBodySize + sizes.responseHeadersSize,
    }
  }
  const onRequest = (request: Request) => stepOf.set(request, step)
  const onDone = (request: Request) => finished.push(record(request))
  page.on('request', onRequest)
  page.on('requestfinished', onDone)
  page.on('requestfailed', onDone)
  return {
    startStep(name: string) {
      step = name
    },
    /** Ends the recording (the checklist keeps polling): call it once the page's network is idle. */
    stop() {
      page.off('request', onRequest)
      page.off('requestfinished', onDone)
      page.off('requestfailed', onDone)
    },
    /** What the step's requests transferred. */
    async of(name: string) {
      const transfers = (await Promise.all(finished)).filter((transfer) => transfer.step === name)
      return {
        bytes: transfers.reduce((sum, transfer) => sum + transfer.bytes, 0),
        requests: transfers.length,
        files: transfers.map(({ step: _step, ...transfer }) => transfer),
      }
    },
  }
}

/**
 * Notes on the page's own clock (milliseconds since the navigation began) when the log-in form is in the page and
 * enabled, when it is submitted, and when the Get started checklist shows its progress; each a frame after the
 * change, when it can be painted. Playwright's own waits poll, up to 500 ms apart, too coarse for this. An init
 * script, so the page's Content-Security-Policy does not apply to it.
 */
const usabilityMarks = `(() => {
  const marks = (window.mailroomBench = {})
  const note = (name) => requestAnimationFrame(() => { marks[name] ??= performance.now() })
  const look = () => {
    const email = document.querySelector('input[type="email"]')
    const logIn = [...document.querySelectorAll('button[type="submit"]')].find((button) => button.textContent.trim() === 'Log in')
    if (!marks.login && email && !email.disabled && logIn && !logIn.disabled) note('login')
    if (!marks.getStarted && document.querySelector('[data-testid="setup-progress"]')) note('getStarted')
  }
  new MutationObserver(look).observe(document, { childList: true, subtree: true, attributes: true })
  document.addEventListener('submit', () => { marks.submitted ??= performance.now() }, true)
})()`

type Marks = { login?: number; submitted?: number; getStarted?: number }

/** One visit with an empty cache: the log-in page until its form can be used, then Get started after logging in. */
async function firstVisit(
  browser: Browser,
  base: string,
  account: { email: string; password: string },
  accepting: 'browser' | 'identity',
) {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    // `identity`: no encoding accepted, so the files come as they are, as before the build compressed them.
    ...(accepting === 'identity' ? { extraHTTPHeaders: { 'accept-encoding': 'identity' } } : {}),
  })
  try {
    await context.addInitScript(usabilityMarks)
    const page = await context.newPage()
    const transfers = recordTransfers(page)

    await page.goto(`${base}/app/login`)
    const email = page.getByRole('textbox', { name: 'Email', exact: true })
    await email.fill(account.email)
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(account.password)
    transfers.startStep('getStarted')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('setup-progress').waitFor()
    // The checklist's own queries may still be on their way; they belong to the page.
    await page.waitForLoadState('networkidle')
    transfers.stop()

    const marks = (await page.evaluate('window.mailroomBench')) as Marks
    if (marks.login === undefined || marks.submitted === undefined || marks.getStarted === undefined) {
      throw new Error(`the page missed a step: ${JSON.stringify(marks)}`)
    }
    const login = await transfers.of('login')
    const getStarted = await transfers.of('getStarted')
    return {
      loginUsableMs: marks.login,
      getStartedUsableMs: marks.getStarted - marks.submitted,
      login,
      getStarted,
      totalBytes: login.bytes + getStarted.bytes,
    }
  } finally {
    await context.close()
  }
}

async function createAccount(base: string) {
  const account = { email: `bench-${Date.now()}@example.com`, password: 'a long bench password' }
  const signup = await fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(account),
  })
  if (!signup.ok) throw new Error(`signup: ${signup.status} ${await signup.text()}`)
  const cookie = signup.headers
    .getSetCookie()
    .map((header) => header.split(';')[0])
    .join('; ')
  const project = await fetch(`${base}/users/@me/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'Shop' }),
  })
  if (project.status !== 201) throw new Error(`project: ${project.status} ${await project.text()}`)
  return account
}

type Visit = Awaited<ReturnType<typeof firstVisit>>

function summarize(visits: Visit[]) {
  const last = visits.at(-1)
  if (!last) throw new Error('no load')
  const transferred = Math.max(...visits.map((visit) => visit.totalBytes))
  return {
    loginUsableMs: median(visits.map((visit) => visit.loginUsableMs)),
    getStartedUsableMs: median(visits.map((visit) => visit.getStartedUsableMs)),
    runs: visits.map((visit) => ({
      loginUsableMs: Math.round(visit.loginUsableMs),
      getStartedUsableMs: Math.round(visit.getStartedUsableMs),
      totalBytes: visit.totalBytes,
    })),
    // The most any load transferred (they differ by a few header bytes), and the last one's file by file.
    transferredBytes: transferred,
    withinBudget: transferred <= firstPageBudgetBytes,
    login: last.login,
    getStarted: last.getStarted,
  }
}

/**
 * `loads` cold visits as chromium makes them (it accepts brotli); in a full run each is followed by one accepting
 * no encoding, what every visit cost before the build compressed the files, so both see the same machine.
 */
async function loadInChromium(executablePath: string) {
  const server = await startBenchServer(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {})
  // --no-sandbox: CI runs as root, where chromium refuses its own sandbox.
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  try {
    const account = await createAccount(server.url)
    const loadAtStart = os.loadavg()
    const compressed: Visit[] = []
    const uncompressed: Visit[] = []
    for (let load = 0; load < loads; load++) {
      compressed.push(await firstVisit(browser, server.url, account, 'browser'))
      if (compareUncompressed) uncompressed.push(await firstVisit(browser, server.url, account, 'identity'))
    }
    return {
      loads,
      // Other work on the machine moves the times: this run's load average, at its start and end.
      loadAverage: [loadAtStart, os.loadavg()].map((load) => Number(load[0]?.toFixed(2))),
      compressed: summarize(compressed),
      uncompressed: compareUncompressed ? summarize(uncompressed) : null,
    }
  } finally {
    await browser.close()
    await server.stop()
  }
}

async function main() {
  // The build the server sends; the same question `npm run bench` asks first.
  execSync('node scripts/build-if-stale.ts', { cwd: root, stdio: ['ignore', 2, 2] })
  const build = readBuild()
  const executablePath = findChromium()
  const browserLoad = executablePath ? await loadInChromium(executablePath) : { skipped: 'no chromium binary found' }
  reportResult('web-bundle.json', { budgetBytes: firstPageBudgetBytes, build, browser: browserLoad })
}

await main()
