import type { MultipartFile } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { AppError, type FieldError } from '../../errors.js'

export type ImageUpload = { filename: string; bytes: Buffer }

const imageField = 'image'

/** Room for the multipart boundaries and part headers around the file in a declared Content-Length. */
const multipartOverheadBytes = 64 * 1024

function fileTooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The image is larger than the ${formatBytes(maxBytes)} accepted`, {
    details: { maxBytes },
  })
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`
}

function invalid(errors: FieldError[], message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { errors })
}

/** Why a client's file name is refused, or undefined. It is only displayed, never used in a path, but kept clean. */
function filenameProblem(filename: string): FieldError | undefined {
  const field = `${imageField}.filename`
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(filename)) {
    return { field, code: 'invalid_string', message: 'must not contain control characters such as CR or LF' }
  }
  if (/[/\\]/.test(filename) || /^\.+$/.test(filename)) {
    return { field, code: 'invalid_string', message: 'must be a file name, not a path' }
  }
  if (filename.length > 255) return { field, code: 'too_big', message: 'must be at most 255 characters' }
  return undefined
}

/**
 * The file's bytes, refusing it as soon as it passes `maxBytes`: busboy stops passing data on at the limit and
 * emits `limit`, so the answer goes out without waiting for (or keeping) the rest of the body, which busboy
 * goes on reading and discarding (see `lingerOnUnreadBody` for why it is read at all). The stream may
 * have ended, failed or hit the limit before this is called (a body that arrived at once): iterating it
 * still yields its data or its error, and `truncated` tells the limit.
 */
async function readFile(stream: MultipartFile['file'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  const overLimit = new Promise<never>((_, reject) =>
    stream.once('limit', () => {
      // What was read is dropped now, not when the rest of the refused body has gone by.
      chunks.length = 0
      reject(fileTooLarge(maxBytes))
    }),
  )
  const reading = (async () => {
    for await (const chunk of stream) chunks.push(chunk)
    if (stream.truncated) throw fileTooLarge(maxBytes)
    return Buffer.concat(chunks)
  })()
  try {
    return await Promise.race([reading, overLimit])
  } finally {
    // The loser settles later (or never); its outcome is already decided by the winner.
    reading.catch(() => {})
    overLimit.catch(() => {})
  }
}

/** What busboy and @fastify/multipart throw for a body that breaks the limits or the format. */
const oneFileOnly = () =>
  invalid([{ field: imageField, code: 'too_big', message: 'send exactly one file' }], 'Send exactly one file')

function fromParserError(err: unknown): unknown {
  const code = err instanceof Error && 'code' in err ? err.code : undefined
  if (code === 'FST_FILES_LIMIT') return oneFileOnly()
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return invalid([{ field: imageField, code: 'too_big', message: 'too many form fields' }], 'Too many form fields')
  }
  if (code === 'FST_PROTO_VIOLATION') return new AppError('BAD_REQUEST', 'A form field name is not allowed')
  if (err instanceof Error && !(err instanceof AppError) && /multipart|boundary|part/i.test(err.message)) {
    return new AppError('BAD_REQUEST', `Malformed multipart body: ${err.message}`)
  }
  return err
}

/**
 * The one image of an upload request: a multipart body with exactly one file, in the field `image` (Plunk's
 * name). Other text fields are ignored. Nothing is kept on disk; the file is held in memory up to `maxBytes`.
 */
export async function readImageUpload(request: FastifyRequest, maxBytes: number): Promise<ImageUpload> {
  if (!request.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Upload the image as multipart/form-data in the field "${imageField}"`)
  }
  const declared = Number(request.headers['content-length'])
  if (declared > maxBytes + multipartOverheadBytes) throw fileTooLarge(maxBytes)

  let upload: ImageUpload | undefined
  const problems: FieldError[] = []
  let files = 0
  try {
    // files: 2, so that a second file is seen and refused rather than silently dropped.
    const parts = request.parts({ limits: { fileSize: maxBytes, files: 2, fields: 20, parts: 22 }, preservePath: true })
    for await (const part of parts) {
      if (part.type !== 'file') continue
      files += 1
      if (part.fieldname !== imageField || files > 1) {
        part.file.resume()
        continue
      }
      const problem = filenameProblem(part.filename)
      if (problem) problems.push(problem)
      upload = { filename: part.filename, bytes: await readFile(part.file, maxBytes) }
    }
  } catch (err) {
    throw fromParserError(err)
  }
  if (files > 1) throw oneFileOnly()
  if (!upload) {
    throw invalid(
      [{ field: imageField, code: 'invalid_type', message: `required: a file in the multipart field "${imageField}"` }],
      files === 1 ? `The file must be sent in the field "${imageField}"` : 'No image file provided',
    )
  }
  if (problems.length > 0) throw invalid(problems, 'The file name is not accepted')
  if (upload.bytes.length === 0) {
    throw invalid([{ field: imageField, code: 'too_small', message: 'the file is empty' }], 'The image file is empty')
  }
  return upload
}
