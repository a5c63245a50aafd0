import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/webhooks.ts` (events delivered as webhooks to a local receiver) in its own process. */
export const webhooks: Benchmark = {
  name: 'webhooks',
  description:
    'events committed at 1,000/s (/v1/track) delivered as webhooks to a local HTTP receiver: first-attempt p95 from the event row; /v1/send with and without webhooks; a queued backlog drained',
  run: ({ quick, serverEnv }) =>
    runBenchScript(
      'bench/webhooks.ts',
      quick
        ? ['--rate', '200', '--seconds', '1', '--send-rate', '100', '--backlog', '1000']
        : ['--rate', '1000', '--seconds', '10', '--send-rate', '250', '--backlog', '20000'],
      serverEnv,
    ),
}
