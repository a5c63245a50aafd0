import { type SQL, sql } from 'drizzle-orm'

/**
 * A moment in microseconds since the Unix epoch. PostgreSQL keeps microseconds; a JS Date keeps milliseconds,
 * so comparing a Date with a column would disagree with the same comparison in SQL.
 */
export type Instant = bigint

const dayMs = 86_400_000

/**
 * The ISO 8601 forms read as dates, in data values and filter values: a date, or a date and a time with an
 * optional zone (none means UTC). Years 1000–9999. Both back ends compute the moment from these parts with the
 * same arithmetic (a day past the month's end rolls over, as `Date.UTC` does), never with their own date
 * parser: PostgreSQL rejects `2026-02-30` with an error, JavaScript accepts it as 2 March.
 */
const isoDatePattern =
  '^([1-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])' +
  '(?:T([01][0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9])(?:\\.([0-9]{1,6}))?)?(Z|[+-](?:0[0-9]|1[0-4]):[0-5][0-9])?)?$'
const isoDate = new RegExp(isoDatePattern)

export function parseInstant(text: string): Instant | undefined {
  const parts = isoDate.exec(text)
  if (!parts) return undefined
  const [, year, month, day, hour, minute, second, fraction = '', zone = 'Z'] = parts
  const offsetMinutes =
    zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)))
  const ms =
    Date.UTC(Number(year), Number(month) - 1, 1, Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0)) +
    (Number(day) - 1) * dayMs -
    offsetMinutes * 60_000
  return BigInt(ms) * 1000n + BigInt(fraction.padEnd(6, '0'))
}

/** `parseInstant` in SQL, for a text expression; NULL where `parseInstant` gives undefined. */
export function instantOfTextSql(text: SQL): SQL {
  return sql`(SELECT (make_timestamp(p[1]::int, p[2]::int, 1, coalesce(p[4]::int, 0), coalesce(p[5]::int, 0),
        coalesce(p[6]::int, 0)) + make_interval(days => p[3]::int - 1)
        + rpad(coalesce(p[7], ''), 6, '0')::int * interval '1 microsecond') AT TIME ZONE 'UTC'
      - CASE WHEN p[8] IS NULL OR p[8] = 'Z' THEN interval '0'
        ELSE make_interval(mins => CASE WHEN left(p[8], 1) = '-' THEN -1 ELSE 1 END
          * (substr(p[8], 2, 2)::int * 60 + substr(p[8], 5, 2)::int)) END
    FROM regexp_match(${text}, ${isoDatePattern}) AS m(p))`
}

/** The first moment of the date written in an ISO value (its date part, whatever its time and zone). */
export function dateOfText(text: string): Instant | undefined {
  return parseInstant(text) === undefined ? undefined : parseInstant(text.slice(0, 10))
}

export function dateOfTextSql(text: SQL): SQL {
  return sql`CASE WHEN ${text} ~ ${isoDatePattern} THEN ${instantOfTextSql(sql`left(${text}, 10)`)} END`
}

export function instantOfDate(date: Date): Instant {
  return BigInt(date.getTime()) * 1000n
}

export const oneDay: Instant = BigInt(dayMs) * 1000n

/** Text PostgreSQL reads back as the same instant (`…::timestamptz`), microseconds included. */
function instantText(at: Instant): string {
  const micros = ((at % 1000n) + 1000n) % 1000n
  const ms = (at - micros) / 1000n
  return new Date(Number(ms)).toISOString().replace('Z', `${micros.toString().padStart(3, '0')}Z`)
}

export function instantSql(at: Instant): SQL {
  return sql`${instantText(at)}::timestamptz`
}
