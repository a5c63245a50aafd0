import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'

/**
 * A random uuid whose first 48 bits are the current Unix time in milliseconds (the layout of a version 7 uuid;
 * the version bits stay 4). Bulk inserts (segment events, campaign emails) give their rows these: with random
 * ids each row would land on a random page of the primary key, with these they all land in one place, which
 * takes about a third off an insert of 100k rows.
 */
export const timeOrderedUuid = sql`encode(overlay(uuid_send(gen_random_uuid())
  PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 'hex')::uuid`

/** The same layout made in JavaScript, for rows whose ids the caller needs before the insert. */
export function newTimeOrderedUuid(): string {
  const time = Date.now().toString(16).padStart(12, '0')
  return `${time.slice(0, 8)}-${time.slice(8, 12)}${randomUUID().slice(13)}`
}
