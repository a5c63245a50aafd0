export type BenchOptions = {
  /** Tiny sizes, for a smoke run that proves the benchmark works. */
  quick: boolean
  /** Environment for the server: DATABASE_URL when benchmarking against a PostgreSQL server. */
  serverEnv: Record<string, string>
}

export type Benchmark = {
  name: string
  description: string
  run(options: BenchOptions): Promise<Record<string, unknown>>
}
