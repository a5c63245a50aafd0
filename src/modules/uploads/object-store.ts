/** Where upload bytes are kept. Keys are ours (see `newObjectKey`), never a client's text. */
export type ObjectStore = {
  kind: 'local' | 's3'
  put(key: string, bytes: Buffer, contentType: string): Promise<void>
  /** Removes the objects; a key already gone is not an error, so an interrupted delete can be repeated. */
  remove(keys: readonly string[]): Promise<void>
  urlOf(key: string): string
  close(): Promise<void>
}
