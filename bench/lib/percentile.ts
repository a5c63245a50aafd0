/** The value at fraction `p` (0 to 1) of `sorted` (ascending), the nearest rank below; 0 when it is empty. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
