/*
 * When each step of a start ended, on the process's clock (milliseconds since Node began, so the time Node itself
 * and the imports take is included), and the CPU the process had used by then. The start's log line carries the
 * breakdown: a slow start says which step, and whether it worked (CPU) or waited (for PostgreSQL, or for a core).
 */
const marks: { phase: string; atMs: number; cpuMs: number }[] = []

function cpuMsSoFar(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1_000
}

export function markStartPhase(phase: string): void {
  marks.push({ phase, atMs: performance.now(), cpuMs: cpuMsSoFar() })
}

export type StartPhases = { phasesMs: Record<string, number>; phasesCpuMs: Record<string, number> }

/** Each marked step's duration and CPU (from the end of the one before, or from Node's start), in milliseconds. */
export function startPhases(): StartPhases {
  const phasesMs: Record<string, number> = {}
  const phasesCpuMs: Record<string, number> = {}
  let previous = { atMs: 0, cpuMs: 0 }
  for (const mark of marks) {
    phasesMs[mark.phase] = Math.round(mark.atMs - previous.atMs)
    phasesCpuMs[mark.phase] = Math.round(mark.cpuMs - previous.cpuMs)
    previous = mark
  }
  return { phasesMs, phasesCpuMs }
}
