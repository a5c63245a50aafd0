/**
 * Every WAL segment file name from `first` to `last` inclusive (`pg_walfile_name` of the backup's start and
 * stop locations). A name is timeline, then the segment number split into a high and a low part of 8 hex
 * digits, where the low part counts segments within 4 GB of WAL.
 */
export function walSegmentNames(first: string, last: string, segmentBytes: number): string[] {
  const pattern = /^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$/
  const start = pattern.exec(first)
  const stop = pattern.exec(last)
  if (!start || !stop || start[1] !== stop[1]) throw new Error(`unexpected WAL file names ${first} and ${last}`)
  const timeline = start[1] ?? ''
  const perHigh = 0x1_0000_0000 / segmentBytes
  const segmentNumber = (match: RegExpExecArray) =>
    Number.parseInt(match[2] ?? '', 16) * perHigh + Number.parseInt(match[3] ?? '', 16)
  const hex = (value: number) => value.toString(16).toUpperCase().padStart(8, '0')
  const names: string[] = []
  for (let segment = segmentNumber(start); segment <= segmentNumber(stop); segment++) {
    names.push(`${timeline}${hex(Math.floor(segment / perHigh))}${hex(segment % perHigh)}`)
  }
  return names
}
