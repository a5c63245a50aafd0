/** Runs `run` once to warm up, then `runs` times; the median duration in milliseconds. */
export async function medianMs(run: () => Promise<unknown>, runs: number): Promise<number> {
  await run()
  const times: number[] = []
  for (let index = 0; index < runs; index++) {
    const started = performance.now()
    await run()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return Number((times[Math.floor(times.length / 2)] ?? 0).toFixed(2))
}
