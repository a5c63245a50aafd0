import { readFileSync } from 'node:fs'

// utime + stime (fields 14 and 15 of /proc/<pid>/stat) in clock ticks, 100 per second on Linux.
export function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10
  } catch {
    return 0
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** Every process below pid (the embedded PostgreSQL postmaster and its backends), pid excluded. */
export function descendants(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendants(child)])
}
