import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { simpleParser } from 'mailparser'
import { type BenchAccount, createBenchAccount } from '../lib/account.js'
import { fullPlan, measure, quickPlan } from '../lib/http-load.js'
import type { LoadResult } from '../lib/load.js'
import { startBenchServer } from '../lib/server.js'
import type { Benchmark, BenchOptions } from '../lib/types.js'

const linksPerEmail = 20

async function api(base: string, account: BenchAccount, method: 'GET' | 'POST', route: string, body?: unknown) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${account.secretKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`)
  return response
}

/**
 * The click tracking paths of `emails` marketing emails of `linksPerEmail` distinct links each, as they reached the
 * capture transport's mailbox: sent through /v1/send, composed and tracked by the outbox like any email.
 */
async function sentClickPaths(base: string, account: BenchAccount, emails: number): Promise<string[]> {
  const links = Array.from(
    { length: linksPerEmail },
    (_, index) =>
      `<p>Item ${index}: <a href="https://shop.example.com/items/${index}?utm_source=news">See item ${index}</a></p>`,
  ).join('\n')
  // The capture transport sends from a registered domain before its DNS is verified.
  await api(base, account, 'POST', '/domains', { domain: 'clicks.example.com' })
  const template = await api(base, account, 'POST', '/templates', {
    name: 'Clicks',
    subject: 'Many links',
    body: `<html><body>${links}\n<p>${'A longer paragraph of newsletter text. '.repeat(60)}</p></body></html>`,
    from: 'news@clicks.example.com',
    type: 'MARKETING',
  })
  const to = Array.from({ length: emails }, (_, index) => `reader-${index}@example.net`)
  const { id: templateId } = (await template.json()) as { id: string }
  await api(base, account, 'POST', '/v1/send', { to, template: templateId, subscribed: true })
  let ids: string[] = []
  for (const started = Date.now(); ids.length < emails; ) {
    if (Date.now() - started > 60_000) throw new Error(`only ${ids.length} of ${emails} emails were composed`)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const page = (await (await api(base, account, 'GET', '/mailbox?limit=100')).json()) as { data: { id: string }[] }
    ids = page.data.map((message) => message.id)
  }
  const paths: string[] = []
  for (const id of ids) {
    const raw = Buffer.from(await (await api(base, account, 'GET', `/mailbox/${id}/raw`)).arrayBuffer())
    const html = String((await simpleParser(raw)).html)
    for (const match of html.matchAll(/href="https?:\/\/[^/"]+(\/t\/click\/[^"]+)"/g)) paths.push(match[1] ?? '')
  }
  if (paths.length !== emails * linksPerEmail) throw new Error(`found ${paths.length} click links`)
  return paths
}

/** A 302 is the answer expected here: anything else (a 404, a 429) counts as failed. */
const redirectsExpected = (run: LoadResult): LoadResult => ({
  ...run,
  non2xx: run.requests - (run.statusCodes['302'] ?? 0),
})

/**
 * GET on click tracking links, each a different email's or link (the redirect is rate limited per link): check the
 * link, record the click on its email (`email.click` or `email.machine_click`), answer 302.
 */
export const click: Benchmark = {
  name: 'click',
  description: 'GET /t/click/<token>: a tracked link of a sent marketing email, recorded and redirected (302)',
  async run({ quick, serverEnv }: BenchOptions) {
    const server = await startBenchServer({ RATE_LIMIT_PER_MINUTE: '100000000', ...serverEnv })
    const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-click-'))
    try {
      const account = await createBenchAccount(server.url)
      // Each link may be followed 120 times a minute: enough links that the load stays well under that.
      const paths = await sentClickPaths(server.url, account, quick ? 5 : 60)
      const pathsFile = path.join(dir, 'paths.txt')
      writeFileSync(pathsFile, `${paths.join('\n')}\n`)
      server.resetPeak()
      const result = await measure(
        { url: `${server.url}${paths[0]}`, method: 'GET', headers: {}, pathsFile },
        quick ? quickPlan : fullPlan,
        server.cpuMs,
      )
      const clickPathLength = Math.round(paths.reduce((sum, p) => sum + p.length, 0) / paths.length)
      return {
        ...result,
        median: result.median && redirectsExpected(result.median),
        runs: result.runs.map(redirectsExpected),
        clickPathLength,
        links: paths.length,
        serverPeakRssMb: server.peakRssMb(),
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
      await server.stop()
    }
  },
}
