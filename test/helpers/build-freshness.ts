import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * The latest modification time of `file`, or of anything below it when it is a directory: a directory's own time
 * counts, so a deleted or renamed source makes a build stale too.
 */
function newestChange(file: string): number {
  const stats = statSync(file)
  if (!stats.isDirectory()) return stats.mtimeMs
  let newest = stats.mtimeMs
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestChange(path.join(file, entry)))
  return newest
}

/** Whether `output` exists and was written after the last change to any of `inputs` (files or directories). */
export function isBuiltFrom(output: string, inputs: readonly string[]): boolean {
  return existsSync(output) && statSync(output).mtimeMs >= Math.max(...inputs.map(newestChange))
}
