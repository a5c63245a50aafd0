import { Readable } from 'node:stream'
import { CsvError, parse } from 'csv-parse'
import { unstorableTextReason } from '../../http/text-guard.js'
import { reservedDataKeys } from './data-rules.js'
import { contactDataLimits, contactEmail } from './schemas.js'
import type { ImportedContact } from './sql.js'

/** How a CSV import reads its file: a header row naming an `email` column, other columns become `data`. */

export type CsvHeader = { emailIndex: number; subscribedIndex: number; dataColumns: { index: number; key: string }[] }

export type ParsedRow = { row: number; contact: ImportedContact } | { row: number; email: string | null; error: string }

export class CsvFormatError extends Error {}

/** Where a pass over the file reads it from, in chunks: an uploaded Buffer, or the stored file read piece by piece. */
export type CsvSource = () => Iterable<Buffer> | AsyncIterable<Buffer>

const parseOptions = { bom: true, trim: true, skip_empty_lines: true, relax_column_count: true } as const

/**
 * The file in 64 KB slices (views, no copies): given as one chunk, the parser turns the whole file into
 * records at once, ignoring backpressure, which made a 100k-row import peak at over 300 MB.
 */
function* slicesOf(file: Buffer, size = 64 * 1024): Generator<Buffer> {
  for (let start = 0; start < file.length; start += size) yield file.subarray(start, start + size)
}

/** Reads the header only, so an upload without an email column is refused before it is queued. */
export async function readCsvHeader(file: Buffer): Promise<CsvHeader> {
  for await (const record of Readable.from(slicesOf(file)).pipe(parse({ ...parseOptions, to_line: 1 }))) {
    return headerFrom(record as string[])
  }
  throw new CsvFormatError('The file is empty: the first row must name the columns')
}

function headerFrom(names: string[]): CsvHeader {
  const lower = names.map((name) => name.toLowerCase())
  const emailIndex = lower.indexOf('email')
  if (emailIndex === -1) throw new CsvFormatError('The header row has no "email" column')
  const dataColumns = names
    .map((key, index) => ({ key, index }))
    .filter(({ key, index }) => key !== '' && index !== emailIndex && lower[index] !== 'subscribed')
    .filter(({ key }) => !reservedDataKeys.has(key))
  if (dataColumns.length > contactDataLimits.maxKeys) {
    throw new CsvFormatError(`At most ${contactDataLimits.maxKeys} data columns are allowed`)
  }
  const long = dataColumns.find(({ key }) => key.length > contactDataLimits.maxKeyLength)
  if (long) throw new CsvFormatError(`Column names may be at most ${contactDataLimits.maxKeyLength} characters`)
  // The same rule as for JSON requests (http/text-guard.ts): such a key would fail every row's write.
  for (const { key } of dataColumns) {
    const reason = unstorableTextReason(key)
    if (reason) throw new CsvFormatError(`Column names ${reason}`)
  }
  return { emailIndex, subscribedIndex: lower.indexOf('subscribed'), dataColumns }
}

const integerOrDecimal = /^-?(0|[1-9]\d*)(\.\d+)?$/
const truthy = new Set(['true', 'yes', '1'])
const falsy = new Set(['false', 'no', '0'])

/** Numbers and booleans are recognised; a leading zero ("01234") stays text, as postal codes need. */
function csvValue(text: string): unknown {
  const lower = text.toLowerCase()
  if (lower === 'true') return true
  if (lower === 'false') return false
  if (integerOrDecimal.test(text)) {
    const number = Number(text)
    if (Number.isFinite(number) && (Number.isSafeInteger(number) || text.includes('.'))) return number
  }
  return text
}

function rowFrom(header: CsvHeader, record: string[], row: number): ParsedRow {
  const rawEmail = record[header.emailIndex] ?? ''
  const email = rawEmail.toLowerCase()
  if (!contactEmail.safeParse(email).success) {
    // The report is stored as JSON too: an address PostgreSQL cannot store is left out of it.
    const reported = rawEmail && !unstorableTextReason(rawEmail) ? rawEmail : null
    return { row, email: reported, error: rawEmail ? 'Invalid email address' : 'Missing email address' }
  }
  let subscribed: boolean | null = null
  const rawSubscribed = (header.subscribedIndex >= 0 ? (record[header.subscribedIndex] ?? '') : '').toLowerCase()
  if (truthy.has(rawSubscribed)) subscribed = true
  else if (falsy.has(rawSubscribed)) subscribed = false
  else if (rawSubscribed !== '') return { row, email, error: 'subscribed must be true or false' }
  const data: Record<string, unknown> = {}
  for (const { index, key } of header.dataColumns) {
    const text = record[index]
    if (!text) continue
    // One such cell would fail the whole batch's write: the row is reported instead.
    const reason = unstorableTextReason(text)
    if (reason) return { row, email, error: `Column "${key}" ${reason}` }
    data[key] = csvValue(text)
  }
  if (Buffer.byteLength(JSON.stringify(data)) > contactDataLimits.maxBytes) {
    return { row, email, error: `data is larger than ${contactDataLimits.maxBytes} bytes` }
  }
  return { row, contact: { email, subscribed, data } }
}

/** The file's records after the header, numbered as in a spreadsheet (the header is row 1). */
async function* csvRecords(source: CsvSource): AsyncGenerator<{ header: CsvHeader; record: string[]; row: number }> {
  let header: CsvHeader | undefined
  let row = 0
  try {
    for await (const record of Readable.from(source()).pipe(parse(parseOptions))) {
      row += 1
      if (!header) header = headerFrom(record as string[])
      else yield { header, record: record as string[], row }
    }
  } catch (err) {
    if (err instanceof CsvError) throw new CsvFormatError(`Malformed CSV: ${err.message}`)
    throw err
  }
  if (!header) throw new CsvFormatError('The file is empty: the first row must name the columns')
}

/**
 * Reads the whole file before anything is written, so a malformed CSV imports nothing, and counts its rows.
 * Keeps no rows: holding 100k parsed rows was most of an import's peak memory.
 */
export async function countCsvRows(source: CsvSource): Promise<number> {
  let rows = 0
  for await (const _ of csvRecords(source)) rows += 1
  return rows
}

/** The rows in batches of `size`, parsed as the file is read (a second pass after `countCsvRows`). */
export async function* csvRowBatches(source: CsvSource, size: number): AsyncGenerator<ParsedRow[]> {
  let batch: ParsedRow[] = []
  for await (const { header, record, row } of csvRecords(source)) {
    batch.push(rowFrom(header, record, row))
    if (batch.length >= size) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}
