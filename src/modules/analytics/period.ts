import { z } from 'zod'
import { AppError, type FieldError } from '../../errors.js'

const hourMs = 60 * 60 * 1000
export const dayMs = 24 * hourMs

/** An ISO 8601 date-time with `Z` or an offset, as a Date. */
export const isoDateTime = z.iso.datetime({ offset: true }).transform((text) => new Date(text))

export type Granularity = 'hour' | 'day'
const stepMs: Record<Granularity, number> = { hour: hourMs, day: dayMs }

/** Buckets are whole UTC hours or days: both have a fixed length in milliseconds since the epoch. */
export function floorTo(date: Date, granularity: Granularity): Date {
  const step = stepMs[granularity]
  return new Date(Math.floor(date.getTime() / step) * step)
}

export function ceilTo(date: Date, granularity: Granularity): Date {
  const step = stepMs[granularity]
  return new Date(Math.ceil(date.getTime() / step) * step)
}

/** How many buckets `[from, to)` holds, by arithmetic: callers check it against their limit before allocating any. */
export function countBuckets(from: Date, to: Date, granularity: Granularity): number {
  return Math.max(0, Math.ceil((to.getTime() - from.getTime()) / stepMs[granularity]))
}

export function bucketStarts(from: Date, to: Date, granularity: Granularity): Date[] {
  const starts: Date[] = []
  for (let time = from.getTime(); time < to.getTime(); time += stepMs[granularity]) starts.push(new Date(time))
  return starts
}

const defaultRangeDays = 30

/** `[from, to)` with the defaults (the last 30 days up to now); `from` must come before `to`. */
export function resolveRange(query: { from?: Date; to?: Date }, fields = { from: 'from', to: 'to' }) {
  const to = query.to ?? new Date()
  const from = query.from ?? new Date(to.getTime() - defaultRangeDays * dayMs)
  if (from.getTime() >= to.getTime()) {
    throw invalidQuery([
      { field: fields.from, code: 'invalid_range', message: `${fields.from} must be before ${fields.to}` },
    ])
  }
  return { from, to }
}

/** The answer to bad query parameters everywhere in the API: 400 with the field errors. */
export function invalidQuery(errors: FieldError[]): AppError {
  return new AppError('BAD_REQUEST', 'Invalid query parameters', { errors })
}
