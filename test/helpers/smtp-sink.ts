import { EventEmitter, once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { type ParsedMail, simpleParser } from 'mailparser'
import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerDataStream,
  type SMTPServerError,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server'

export type SmtpReply = { code: number; message: string }

export type SmtpSinkOptions = {
  /** Return a reply to refuse RCPT TO for that recipient (550 permanent, 451 temporary...). */
  failWith?: (rcpt: string) => SmtpReply | undefined
  /** Defaults to true: clients may send without AUTH, and any credentials are accepted. */
  authOptional?: boolean
  /** Defaults to false. When true the server offers STARTTLS with smtp-server's built-in self-signed certificate. */
  starttls?: boolean
}

export type ReceivedMessage = {
  /** `from` is '' for the null sender (`MAIL FROM:<>`), as bounces use. */
  envelope: { from: string; to: string[] }
  /** The DATA payload exactly as the client sent it (dot-unstuffed), for DKIM verification. */
  raw: Buffer
  parsed: ParsedMail
  auth?: { username: string; password: string }
}

export type SmtpSink = {
  port: number
  url: string
  /** Mutated in place, so a reference taken before `reset()` stays live. */
  messages: ReceivedMessage[]
  waitForMessages: (count: number, timeoutMs?: number) => Promise<ReceivedMessage[]>
  reset: () => void
  close: () => Promise<void>
}

const ADDED = 'added'

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ReceivedMessage[] = []
  const arrivals = new EventEmitter()
  const credentials = new Map<string, { username: string; password: string }>()

  const record = (message: ReceivedMessage) => {
    messages.push(message)
    arrivals.emit(ADDED)
  }

  const server = new SMTPServer({
    ...buildServerOptions(options),
    onAuth(auth, session, callback) {
      credentials.set(session.id, { username: auth.username ?? '', password: auth.password ?? '' })
      callback(null, { user: auth.username ?? 'anonymous' })
    },
    onRcptTo(address, _session, callback) {
      callback(refuseRecipient(address, options.failWith))
    },
    onData(stream, session, callback) {
      receiveMessage(stream, session, credentials.get(session.id))
        .then((message) => {
          record(message)
          callback()
        })
        .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err))))
    },
    onClose(session) {
      credentials.delete(session.id)
    },
  })

  const port = await listen(server)
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitForMessages: (count, timeoutMs = 10_000) => waitForCount(messages, arrivals, count, timeoutMs),
    reset: () => {
      messages.length = 0
    },
    close: () => closeServer(server),
  }
}

function buildServerOptions(options: SmtpSinkOptions): SMTPServerOptions {
  return {
    authOptional: options.authOptional ?? true,
    // Plain-text AUTH is fine on loopback; without this smtp-server refuses AUTH before STARTTLS.
    allowInsecureAuth: true,
    disabledCommands: options.starttls ? [] : ['STARTTLS'],
    logger: false,
  }
}

function refuseRecipient(
  address: SMTPServerAddress,
  failWith: SmtpSinkOptions['failWith'],
): SMTPServerError | undefined {
  const reply = failWith?.(address.address)
  if (!reply) return undefined
  const err: SMTPServerError = new Error(reply.message)
  err.responseCode = reply.code
  return err
}

async function receiveMessage(
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
  auth: ReceivedMessage['auth'],
): Promise<ReceivedMessage> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk)
  const raw = Buffer.concat(chunks)
  const { mailFrom, rcptTo } = session.envelope
  return {
    envelope: {
      from: mailFrom ? mailFrom.address : '',
      to: rcptTo.map((rcpt) => rcpt.address),
    },
    raw,
    // Parse a copy so nothing mailparser does can touch the bytes kept for DKIM checks.
    parsed: await simpleParser(Buffer.from(raw)),
    ...(auth ? { auth } : {}),
  }
}

async function listen(server: SMTPServer): Promise<number> {
  const listening = once(server.server, 'listening')
  server.listen(0, '127.0.0.1')
  await listening
  return portOf(server.server.address())
}

function portOf(address: AddressInfo | string | null): number {
  if (address === null || typeof address === 'string') {
    throw new Error(`SMTP sink is not listening on TCP: ${address}`)
  }
  return address.port
}

function closeServer(server: SMTPServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    // smtp-server otherwise waits up to 30 s for clients (a pooled transport, a stuck test) to hang up.
    for (const connection of server.connections) connection.close()
  })
}

async function waitForCount<T>(
  items: readonly T[],
  emitter: EventEmitter,
  count: number,
  timeoutMs: number,
): Promise<T[]> {
  const signal = AbortSignal.timeout(timeoutMs)
  while (items.length < count) {
    try {
      await once(emitter, ADDED, { signal })
    } catch {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${count} SMTP messages, got ${items.length}`)
    }
  }
  return [...items]
}
