import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import path from 'node:path'

/** Bytes no encoding would leave alone by accident: what arrives must be these, exactly. */
export const attachmentBytes = randomBytes(24 * 1024)

export const dottedLines = ['.one leading dot', '..two leading dots', '.', 'the line above was a lone dot']

type MessageParts = {
  from?: string
  to?: string
  subject?: string
  /** Extra header lines, each "Name: value". */
  headers?: string[]
  /** Body lines of the text part; by default lines that SMTP must dot-stuff. */
  text?: string[]
}

/** A multipart message as an app would send it: a text part and a base64 attachment, CRLF line endings. */
export function buildMessage(parts: MessageParts = {}): Buffer {
  const boundary = 'relay-test-boundary'
  const base64 = attachmentBytes.toString('base64').match(/.{1,76}/g) ?? []
  const lines = [
    `From: ${parts.from ?? 'App <app@sender.test>'}`,
    `To: ${parts.to ?? 'user@example.com'}`,
    `Subject: ${parts.subject ?? 'Relay test'}`,
    'Message-ID: <relay-test@sender.test>',
    'X-Custom-Header: kept as sent',
    ...(parts.headers ?? []),
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 7bit',
    '',
    ...(parts.text ?? dottedLines),
    `--${boundary}`,
    'Content-Type: application/octet-stream; name="data.bin"',
    'Content-Disposition: attachment; filename="data.bin"',
    'Content-Transfer-Encoding: base64',
    '',
    ...base64,
    `--${boundary}--`,
    '',
  ]
  return Buffer.from(lines.join('\r\n'), 'utf8')
}

export function writeMessage(folder: string, name: string, message: Buffer): string {
  const file = path.join(folder, name)
  writeFileSync(file, message)
  return file
}
