import { runBenchScript } from '../lib/script.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/workflows.ts` (tracked events starting executions; DELAYs ending at one moment) in its own process. */
export const workflows: Benchmark = {
  name: 'workflows',
  description:
    '/v1/track at 1,000 events/s each starting an execution, first step p95; 100k executions waiting in a DELAY: memory, and lateness of the last wake-up',
  run: ({ quick, serverEnv }) =>
    runBenchScript(
      'bench/workflows.ts',
      quick
        ? ['--rate', '200', '--seconds', '3', '--waiting', '5000', '--due-in', '10']
        : ['--rate', '1000', '--seconds', '10', '--waiting', '100000', '--due-in', '60'],
      serverEnv,
    ),
}
