import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/web-bundle.ts` (the dashboard's build sizes, and its first page loaded in chromium) in its own process. */
export const webBundle: Benchmark = {
  name: 'web-bundle',
  description:
    "the dashboard's chunks raw, gzip and brotli, the first download the shell names, and in chromium with an empty cache: bytes transferred, requests and time until the log-in form, then Get started, can be used",
  run: ({ quick, serverEnv }) =>
    runBenchScript('bench/web-bundle.ts', quick ? ['--loads', '1', '--no-uncompressed'] : ['--loads', '5'], serverEnv),
}
