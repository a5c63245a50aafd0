import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/delivery.ts` (outbox to a loopback SMTP sink, against raw nodemailer) in its own process. */
export const delivery: Benchmark = {
  name: 'delivery',
  description:
    'emails/s from the outbox to a loopback SMTP sink, DKIM-signed with RSA-2048, against raw pooled nodemailer to the same sink in the same run',
  run: ({ quick, serverEnv }) =>
    runBenchScript(
      'bench/delivery.ts',
      ['--size', quick ? '200' : '5000', ...(quick ? ['--rounds', '1', '--warmup', '100'] : [])],
      serverEnv,
    ),
}
