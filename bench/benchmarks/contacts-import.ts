import { createBenchAccount } from '../lib/account.js'
import { startBenchServer } from '../lib/server.js'
import type { Benchmark } from '../lib/types.js'

function csvOf(rows: number): string {
  const lines = ['email,subscribed,first_name,plan,seats,vip']
  for (let i = 0; i < rows; i++) {
    lines.push(`user${i}@example.com,${i % 3 ? 'true' : 'false'},Name${i},pro,${i % 50},${i % 2 ? 'true' : 'false'}`)
  }
  return lines.join('\n')
}

type ImportJob = { state: string; created: number; updated: number; failed: number }

/** Uploads the CSV and polls the job until it ends; the time is upload to completion, as a user sees it. */
async function importOnce(base: string, secretKey: string, csv: string): Promise<ImportJob & { ms: number }> {
  const authorization = `Bearer ${secretKey}`
  const form = new FormData()
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv')
  const started = performance.now()
  const accepted = await fetch(`${base}/contacts/import`, { method: 'POST', headers: { authorization }, body: form })
  if (accepted.status !== 202) throw new Error(`import refused: ${accepted.status} ${await accepted.text()}`)
  const { jobId } = (await accepted.json()) as { jobId: string }
  for (;;) {
    const polled = await fetch(`${base}/contacts/import/${jobId}`, { headers: { authorization } })
    const job = (await polled.json()) as ImportJob
    if (job.state === 'completed' || job.state === 'failed')
      return { ...job, ms: Math.round(performance.now() - started) }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export const contactsImport: Benchmark = {
  name: 'contacts-import',
  description: 'CSV import through POST /contacts/import and the job worker: new contacts, then the same rows again',
  async run({ quick, serverEnv }) {
    const rows = quick ? 1_000 : 100_000
    const server = await startBenchServer(serverEnv)
    try {
      const account = await createBenchAccount(server.url)
      const csv = csvOf(rows)
      server.resetPeak()
      const created = await importOnce(server.url, account.secretKey, csv)
      const updated = await importOnce(server.url, account.secretKey, csv)
      return {
        rows,
        csvBytes: Buffer.byteLength(csv),
        newContacts: created,
        existingContacts: updated,
        barMs: 10_000,
        serverPeakRssMb: server.peakRssMb(),
      }
    } finally {
      await server.stop()
    }
  },
}
