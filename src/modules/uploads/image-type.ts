/** The image types an upload may be, each with the extension its stored copy gets. */
export const imageTypes = {
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  png: { contentType: 'image/png', extension: 'png' },
  gif: { contentType: 'image/gif', extension: 'gif' },
  webp: { contentType: 'image/webp', extension: 'webp' },
} as const

export type ImageFormat = keyof typeof imageTypes

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/**
 * The format the file's first bytes announce, or undefined when they announce none we accept. The declared
 * content type and the file name are never asked: a script named `x.png` sent as `image/png` stays a script.
 */
export function sniffImageFormat(bytes: Buffer): ImageFormat | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg'
  if (bytes.subarray(0, 8).equals(pngSignature)) return 'png'
  const head = bytes.subarray(0, 6).toString('latin1')
  if (head === 'GIF87a' || head === 'GIF89a') return 'gif'
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'webp'
  }
  return undefined
}

const extensionTypes: Record<string, string> = Object.fromEntries(
  Object.values(imageTypes).map(({ extension, contentType }) => [extension, contentType]),
)

/** The content type of a stored file by its extension (ours: the key's extension came from the sniffed format). */
export function contentTypeOfExtension(extension: string): string | undefined {
  return extensionTypes[extension]
}
