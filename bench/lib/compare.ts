/** Every numeric leaf of a benchmark's result, keyed by its dotted path (`accept.cpuMsPerRequest`). */
function numericLeaves(value: unknown, prefix = ''): Map<string, number> {
  const leaves = new Map<string, number>()
  if (typeof value === 'number' && Number.isFinite(value)) {
    leaves.set(prefix, value)
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      for (const [leaf, number] of numericLeaves(item, prefix ? `${prefix}.${key}` : key)) leaves.set(leaf, number)
    }
  }
  return leaves
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const round = (value: number, digits = 3) => Number(value.toFixed(digits))

export type MetricComparison = {
  metric: string
  /** Median over the rounds of the `--against` build and of this checkout. */
  against: number
  current: number
  /** current / against of the medians; above 1 means more (more CPU, more req/s, more ms) in this checkout. */
  ratio: number | null
  /** The lowest and highest of the per-round ratios: how far one round's verdict can be trusted. */
  spread: [number, number] | null
}

/**
 * For each metric both sides report, the medians and their ratio. Rounds are paired (round i of each side ran
 * back to back), so the per-round ratios show the spread the machine's drift left in the comparison.
 */
export function compareRounds(against: unknown[], current: unknown[]): MetricComparison[] {
  const againstLeaves = against.map((result) => numericLeaves(result))
  const currentLeaves = current.map((result) => numericLeaves(result))
  const metrics = [...(againstLeaves[0]?.keys() ?? [])].filter((metric) => currentLeaves[0]?.has(metric))
  return metrics.map((metric) => {
    const a = againstLeaves.map((leaves) => leaves.get(metric)).filter((value) => value !== undefined)
    const c = currentLeaves.map((leaves) => leaves.get(metric)).filter((value) => value !== undefined)
    const againstMedian = median(a)
    const currentMedian = median(c)
    const ratios = a.flatMap((value, index) => {
      const paired = c[index]
      return value !== 0 && paired !== undefined ? [paired / value] : []
    })
    return {
      metric,
      against: round(againstMedian),
      current: round(currentMedian),
      ratio: againstMedian === 0 ? null : round(currentMedian / againstMedian),
      spread: ratios.length > 0 ? [round(Math.min(...ratios)), round(Math.max(...ratios))] : null,
    }
  })
}
