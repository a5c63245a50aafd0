import { Text } from '@mantine/core'

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
]

const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

/** "3 minutes ago", "in 5 minutes", "now": the largest whole unit between `at` and `now`. */
function relativeTime(at: Date, now = Date.now()): string {
  const seconds = Math.round((at.getTime() - now) / 1000)
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit)
  }
  return format.format(0, 'second')
}

/** A moment as people say it ("2 minutes ago"), the exact local date and time on hover. */
export function RelativeTime({ at, size = 'sm' }: { at: string; size?: 'xs' | 'sm' }) {
  const date = new Date(at)
  return (
    <Text component="time" dateTime={at} title={date.toLocaleString()} size={size} c="dimmed">
      {relativeTime(date)}
    </Text>
  )
}
