import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/relay.ts` (SMTP relay accept over TLS, then delivery against /v1/send's) in its own process. */
export const relay: Benchmark = {
  name: 'relay',
  description:
    'SMTP relay: 20 kB messages with an attachment accepted over 4 implicit-TLS connections (rate, end of DATA to 250 latency), then delivered to a loopback SMTP sink against the same messages accepted the /v1/send way, in the same run',
  run: ({ quick, serverEnv }) =>
    runBenchScript(
      'bench/relay.ts',
      ['--size', quick ? '100' : '2000', ...(quick ? ['--rounds', '1', '--warmup', '50'] : [])],
      serverEnv,
    ),
}
