import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/campaign.ts` (fan-out at 100k and 1M contacts, delivery against raw nodemailer) in its own process. */
export const campaign: Benchmark = {
  name: 'campaign',
  description:
    'campaign fully queued after send at 100k and 1M contacts; campaign delivery to a loopback SMTP sink against raw nodemailer, with transactional accept-to-sink p99 under a concurrent /v1/send load',
  run: ({ quick, serverEnv }) =>
    runBenchScript(
      'bench/campaign.ts',
      quick
        ? ['--contacts', '5000', '--large', '0', '--size', '1000', '--rounds', '1', '--alone', '2']
        : ['--contacts', '100000', '--large', '1000000', '--size', '10000', '--rounds', '3'],
      serverEnv,
    ),
}
