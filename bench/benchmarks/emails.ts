import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/emails.ts` (one email's timeline and the filtered list on a project of 10M emails) in its own process. */
export const emails: Benchmark = {
  name: 'emails',
  description:
    'GET /emails/:id p95 on a project holding 10M emails (generated set-based), each looked-up email with ~10 history entries, at 1, 4 and 16 connections; GET /emails with filters',
  run: ({ quick, serverEnv }) =>
    runBenchScript(
      'bench/emails.ts',
      quick
        ? ['--emails', '20000', '--lookups', '1000', '--seconds', '1']
        : ['--emails', '10000000', '--lookups', '10000', '--seconds', '10'],
      serverEnv,
    ),
}
