import { Writable } from 'node:stream'

export type CapturedLog = {
  stream: Writable
  /** Everything written so far, as one string: what an operator's log file would hold. */
  text(): string
  /** The lines written so far, each parsed from pino's JSON. */
  lines(): Record<string, unknown>[]
}

/** A log destination a test can read back. */
export function captureLog(): CapturedLog {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString())
      done()
    },
  })
  const text = () => chunks.join('')
  return {
    stream,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  }
}
