import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/recipients-csv.ts` (a campaign's recipients as a streamed CSV file) in its own process. */
export const recipientsCsv: Benchmark = {
  name: 'recipients-csv',
  description:
    'GET /campaigns/:id/recipients.csv of a 1M-recipient campaign (generated set-based): time, rows, and the server RSS at start, peak and end',
  run: ({ quick, serverEnv }) =>
    runBenchScript('bench/recipients-csv.ts', ['--recipients', quick ? '20000' : '1000000'], serverEnv),
}
