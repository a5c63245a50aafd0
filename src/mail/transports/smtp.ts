import { createTransport, type NodemailerError } from 'nodemailer'
import { type Transport, TransportError } from './transport.js'

export type SmtpTransportOptions = { maxConnections?: number }

/** SMTP 5xx (except 503) is permanent; 4xx, lost connections, timeouts and refused logins are retried. */
export function classifySmtpError(err: unknown): TransportError {
  const error = err as NodemailerError
  const message = error.response ?? error.message ?? String(err)
  const code = error.responseCode ? String(error.responseCode) : error.code
  if (error.permanent === true) return new TransportError(message, true, code)
  // An envelope refused without a server reply means the addresses themselves are unusable.
  if (error.code === 'EENVELOPE' && error.responseCode === undefined) return new TransportError(message, true, code)
  return new TransportError(message, false, code)
}

/** Pooled SMTP from `SMTP_URL`: smtp:// upgrades with STARTTLS when offered, smtps:// is TLS from the start. */
export function createSmtpTransport(url: string, options: SmtpTransportOptions = {}): Transport {
  const transporter = createTransport({
    url,
    pool: true,
    maxConnections: options.maxConnections ?? 8,
    maxMessages: Number.POSITIVE_INFINITY,
    // A message whose pooled connection was closed under it may be tried once more on a fresh one; our
    // own retries with backoff take over after that.
    maxRequeues: 1,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  })
  return {
    async send(message) {
      try {
        await transporter.sendMail({ envelope: message.envelope, raw: message.raw })
      } catch (err) {
        throw classifySmtpError(err)
      }
      return { providerMessageId: message.messageId }
    },
    async close(options) {
      transporter.close({ force: options?.force ?? false })
    },
  }
}
