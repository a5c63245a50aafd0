import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** Prints a standalone bench's JSON result (its stdout carries nothing else) and keeps a copy in bench/results/. */
export function reportResult(fileName: string, result: unknown): void {
  const json = JSON.stringify(result, null, 2)
  console.log(json)
  const resultsDir = path.join(import.meta.dirname, '..', 'results')
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(path.join(resultsDir, fileName), `${json}\n`)
}
