/** What every step config form gets: the config as stored, a setter, and the API's error for a config path. */
export type ConfigFieldsProps = {
  config: Record<string, unknown>
  onChange(config: Record<string, unknown>): void
  errorFor(path: string): string | undefined
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

export function numberOrEmpty(value: unknown): number | '' {
  return typeof value === 'number' ? value : ''
}
