import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { cpSync, rmSync } from 'node:fs'
import path from 'node:path'
import { buildCommit, resolveRef } from './build-ref.js'
import { compareRounds, type MetricComparison } from './compare.js'
import { root } from './server.js'

export type Side = { label: string; directory: string }

/**
 * One benchmark run in a checkout, as `npm run bench -- <name>` would run it there, with this checkout's
 * harness: the same load and the same measurements on both sides, only the server's code differs.
 */
async function runOnce(side: Side, name: string, quick: boolean): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', name, ...(quick ? ['--quick'] : [])], {
    cwd: side.directory,
    env: { ...process.env, BENCH_SKIP_BUILD: '1', BENCH_NO_RESULTS: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`${name} on ${side.label} exited with ${code}`)
  return JSON.parse(output) as Record<string, unknown>
}

/** The measurements alone: what run.ts adds around them (date, machine, description) is not compared. */
function measured(result: Record<string, unknown>): Record<string, unknown> {
  const { benchmark: _b, description: _d, date: _t, quick: _q, machine: _m, ...rest } = result
  return rest
}

type AgainstOptions = { names: string[]; quick: boolean; rounds: number }

/**
 * The `--against` ref built beside this checkout, with this checkout's harness copied in so both sides measure
 * the same way. Throws a RefError when the ref names no commit or does not build.
 */
export function prepareAgainst(ref: string): Side {
  const commit = resolveRef(ref)
  const directory = buildCommit(commit)
  rmSync(path.join(directory, 'bench'), { recursive: true, force: true })
  cpSync(path.join(root, 'bench'), path.join(directory, 'bench'), {
    recursive: true,
    filter: (source) => !source.includes(`${path.sep}results`),
  })
  return { label: `${ref} (${commit.slice(0, 10)})`, directory }
}

/**
 * Runs each benchmark on both builds interleaved (against, current, against, current …) so the machine's drift
 * falls on both sides alike, and reports per metric the medians and their ratio.
 */
export async function runAgainst(
  against: Side,
  options: AgainstOptions,
): Promise<
  Array<{ benchmark: string; against: string; current: string; rounds: number; metrics: MetricComparison[] }>
> {
  const current: Side = {
    label: `${resolveRef('HEAD').slice(0, 10)} (this checkout, with its uncommitted changes)`,
    directory: root,
  }
  const sides: [Side, Side] = [against, current]
  const comparisons = []
  for (const name of options.names) {
    const results: [unknown[], unknown[]] = [[], []]
    for (let round = 0; round < options.rounds; round++) {
      for (const [index, side] of sides.entries()) {
        console.error(`[against] ${name} round ${round + 1}/${options.rounds} on ${side.label}`)
        results[index]?.push(measured(await runOnce(side, name, options.quick)))
      }
    }
    comparisons.push({
      benchmark: name,
      against: against.label,
      current: current.label,
      rounds: options.rounds,
      metrics: compareRounds(results[0], results[1]),
    })
  }
  return comparisons
}
