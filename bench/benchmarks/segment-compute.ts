import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/segment-compute.ts` (a service call on an in-process context) in its own process. */
export const segmentCompute: Benchmark = {
  name: 'segment-compute',
  description:
    'compute of a tracked dynamic segment (data + event filter) from empty membership over 1M contacts: 100k entries and their events',
  run: ({ quick, serverEnv }) => runBenchScript('bench/segment-compute.ts', quick ? ['--quick'] : [], serverEnv),
}
