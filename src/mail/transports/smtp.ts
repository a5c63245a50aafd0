import { Readable } from 'node:stream'
import type { NodemailerError } from 'nodemailer'
import SMTPPool from 'nodemailer/lib/smtp-pool'
import { type OutgoingMessage, type Transport, TransportError } from './transport.js'

export type SmtpTransportOptions = { maxConnections?: number }

// The commands whose 5xx reply is about the recipient or this message: a bounce. A 5xx to MAIL FROM or
// AUTH is about our sender or account and says nothing about the address.
const bounceCommands = new Set(['RCPT TO', 'DATA'])

/** SMTP 5xx (except 503) is permanent; 4xx, lost connections, timeouts and refused logins are retried. */
function classifySmtpError(err: unknown): TransportError {
  const error = err as NodemailerError
  const message = error.response ?? error.message ?? String(err)
  const code = error.responseCode ? String(error.responseCode) : error.code
  if (error.permanent === true) {
    return new TransportError(message, true, code, bounceCommands.has(error.command ?? ''))
  }
  // An envelope refused without a server reply means the addresses themselves are unusable.
  if (error.code === 'EENVELOPE' && error.responseCode === undefined) return new TransportError(message, true, code)
  return new TransportError(message, false, code)
}

/** `news@example.com` with return path `bounce.example.com` → `news@bounce.example.com`: bounces go there. */
function envelopeSender(message: Pick<OutgoingMessage, 'envelope' | 'returnPathDomain'>): string {
  const { from } = message.envelope
  const at = from.lastIndexOf('@')
  return message.returnPathDomain && at > 0 ? `${from.slice(0, at)}@${message.returnPathDomain}` : from
}

/**
 * The message as the pool reads it (envelope, Message-ID, a stream of the bytes). Handing the finished
 * bytes straight to the pool skips nodemailer's Mailer, which would parse them into a MIME tree again and
 * costs more CPU on the sending thread than the SMTP exchange itself.
 */
function poolMessage(message: OutgoingMessage) {
  const messageId = `<${message.messageId}>`
  return {
    data: {},
    message: {
      getEnvelope: () => ({ from: envelopeSender(message), to: [...message.envelope.to] }),
      messageId: () => messageId,
      getHeader: (name: string) => (name.toLowerCase() === 'message-id' ? messageId : undefined),
      createReadStream: () => Readable.from([message.raw]),
    },
  }
}

/** Pooled SMTP from `SMTP_URL`: smtp:// upgrades with STARTTLS when offered, smtps:// is TLS from the start. */
export function createSmtpTransport(url: string, options: SmtpTransportOptions = {}): Transport {
  const maxConnections = options.maxConnections ?? 8
  const pool = new SMTPPool({
    url,
    maxConnections,
    maxMessages: Number.POSITIVE_INFINITY,
    // A message whose pooled connection was closed under it may be tried once more on a fresh one; our
    // own retries with backoff take over after that.
    maxRequeues: 1,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  })
  return {
    // One per connection: any more wait in the pool's FIFO queue, where a transactional email sat behind campaign
    // emails; in the outbox's priority gate it overtakes them. During a full-speed campaign the SMTP exchange of a
    // transactional email took p50 16–19 ms with two per connection, 6–8 ms with one, at the same campaign rate
    // (2026-11-27; accept-to-sink p50 90–100 ms with 64 per pool, 60 ms with 16).
    concurrency: maxConnections,
    send(message) {
      return new Promise((resolve, reject) => {
        const mail = poolMessage(message) as unknown as Parameters<SMTPPool['send']>[0]
        pool.send(mail, (err, info) =>
          err
            ? reject(classifySmtpError(err))
            : resolve({ providerMessageId: message.messageId, ...(info?.response ? { response: info.response } : {}) }),
        )
      })
    },
    async close(closeOptions) {
      pool.close({ force: closeOptions?.force ?? false })
    },
  }
}
