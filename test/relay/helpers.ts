import MailComposer from 'nodemailer/lib/mail-composer'
import type Mail from 'nodemailer/lib/mailer'
import { expect } from 'vitest'
import { SmtpRefusal, type Submission } from '../../src/mail/submission/handler.js'

/**
 * A message as an SMTP client's library writes it (nodemailer's composer), CRLF line ends as on the wire. With a
 * `bcc`, its header is kept, as many applications send it.
 */
export async function composeRaw(options: Mail.Options): Promise<Buffer> {
  const message = new MailComposer(options).compile()
  message.keepBcc = true
  // The composer leaves 7bit parts with bare LFs; its SMTP client sends them as CRLF, as every client must.
  return Buffer.from((await message.build()).toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1')
}

export function submission(projectId: string, raw: Buffer, envelope: { from: string; to: string[] }): Submission {
  return { projectId, mailFrom: envelope.from, recipients: envelope.to, raw, remoteAddress: '127.0.0.1' }
}

/** What a refused step told the client: its reply code and text, as the SMTP server would send them. */
export async function refusalOf(step: Promise<unknown>): Promise<{ code: number; message: string }> {
  const err = await step.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(err).toBeInstanceOf(SmtpRefusal)
  const refusal = err as SmtpRefusal
  return { code: refusal.responseCode, message: refusal.message }
}
