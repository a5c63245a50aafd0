import sharp, { type Sharp } from 'sharp'
import { AppError, type FieldError } from '../../errors.js'
import { type ImageFormat, imageTypes, sniffImageFormat } from './image-type.js'

// An upload is decoded once; libvips' operation cache would only hold its pixels in memory afterwards.
sharp.cache(false)

/** A decoder stuck on a hostile file gives up after this; an honest 10 MB image takes well under a second. */
const processTimeoutSeconds = 20

export type CleanImage = {
  bytes: Buffer
  format: ImageFormat
  contentType: string
  extension: string
  width: number
  /** The height of one frame (an animated image is stored as a strip of frames). */
  height: number
  frames: number
}

function imageError(code: string, message: string, reason?: string): AppError {
  const errors: FieldError[] = [{ field: 'image', code, message }]
  return new AppError('VALIDATION_ERROR', message, { errors, ...(reason ? { details: { reason } } : {}) })
}

function undecodable(err: unknown): AppError {
  // libvips adds its warnings line by line, often the same ones twice.
  const lines = err instanceof Error ? err.message.split('\n').map((line) => line.trim()) : []
  const reason = [...new Set(lines.filter(Boolean))].join(' ').slice(0, 300) || undefined
  return imageError('invalid_image', 'The image is damaged or truncated and cannot be read', reason)
}

function encoder(pipeline: Sharp, format: ImageFormat): Sharp {
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: 90 })
    case 'png':
      return pipeline.png()
    case 'gif':
      return pipeline.gif()
    case 'webp':
      return pipeline.webp({ quality: 90 })
  }
}

/**
 * Checks that `bytes` are a JPEG, PNG, GIF or WebP image and re-encodes them in the same format. Re-encoding
 * drops every piece of metadata (EXIF with its GPS position and camera serial, XMP, ICC, comments) and anything
 * smuggled after the image data, so what is served is only pixels. Animated GIF and WebP keep their frames,
 * delays and loop count. The EXIF orientation is applied to the pixels before it is dropped.
 */
export async function cleanImage(bytes: Buffer, limits: { maxPixels: number }): Promise<CleanImage> {
  const format = sniffImageFormat(bytes)
  if (!format) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The file is not a JPEG, PNG, GIF or WebP image', {
      errors: [{ field: 'image', code: 'invalid_type', message: 'Expected a JPEG, PNG, GIF or WebP image' }],
    })
  }
  // Options for both reads: `limitInputPixels` stops a decompression bomb before its pixels are allocated.
  const input = { animated: true, failOn: 'truncated', limitInputPixels: limits.maxPixels } as const
  // The header alone, to refuse oversized images with their real dimensions in the message.
  const metadata = await sharp(bytes, { ...input, limitInputPixels: false })
    .metadata()
    .catch((err: unknown) => {
      throw undecodable(err)
    })
  if (metadata.format !== format) throw undecodable(new Error(`${format} signature, ${metadata.format} content`))
  const pixels = metadata.width * metadata.height
  if (pixels > limits.maxPixels) {
    throw imageError(
      'too_big',
      `The image has ${metadata.width}x${metadata.height} pixels${metadata.pages && metadata.pages > 1 ? ' over all frames' : ''}; at most ${limits.maxPixels} are accepted`,
    )
  }
  let pipeline = sharp(bytes, input).timeout({ seconds: processTimeoutSeconds })
  if (metadata.orientation && metadata.orientation > 1) pipeline = pipeline.autoOrient()
  const { data, info } = await encoder(pipeline, format)
    .toBuffer({ resolveWithObject: true })
    .catch((err: unknown) => {
      throw undecodable(err)
    })
  return {
    bytes: data,
    format,
    ...imageTypes[format],
    width: info.width,
    height: info.pageHeight ?? info.height,
    frames: info.pages ?? 1,
  }
}
