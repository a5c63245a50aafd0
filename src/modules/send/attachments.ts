import { AppError, type FieldError } from '../../errors.js'
import type { NewEmailAttachment } from '../delivery/service.js'
import type { SendBody } from './schemas.js'

/** The whole message may not exceed this (spec), whatever the attachment allowance is set to. */
export const maxMessageBytes = 40 * 1024 * 1024

function tooBig(field: string, message: string): AppError {
  const error: FieldError = { field, code: 'too_big', message }
  return new AppError('VALIDATION_ERROR', message, { errors: [error] })
}

/** Decodes the base64 attachments once and enforces the attachment and message size limits. */
export function decodeAttachments(
  attachments: SendBody['attachments'],
  htmlBytes: number,
  maxAttachmentBytes: number,
): NewEmailAttachment[] {
  const decoded = (attachments ?? []).map((attachment) => ({
    filename: attachment.filename,
    contentType: attachment.contentType,
    content: Buffer.from(attachment.content, 'base64'),
    contentId: attachment.contentId ?? null,
    disposition: attachment.disposition,
  }))
  const attachmentBytes = decoded.reduce((sum, attachment) => sum + attachment.content.length, 0)
  if (attachmentBytes > maxAttachmentBytes) {
    throw tooBig('attachments', `Attachments add up to ${attachmentBytes} bytes; the limit is ${maxAttachmentBytes}`)
  }
  // The body goes out twice (HTML and its plain-text alternative); base64 grows each attachment by a third.
  if (htmlBytes * 2 + Math.ceil(attachmentBytes / 3) * 4 > maxMessageBytes) {
    throw tooBig('body', `The message would exceed ${maxMessageBytes} bytes`)
  }
  return decoded
}
