import { EventEmitter, once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { type ParsedMail, simpleParser } from 'mailparser'
import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerDataStream,
  type SMTPServerError,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server'

type SmtpReply = { code: number; message: string }

export type SmtpSinkOptions = {
  /** Return a reply to refuse RCPT TO for that recipient (550 permanent, 451 temporary...). */
  failWith?: (rcpt: string) => SmtpReply | undefined
  /** Return a reply to refuse MAIL FROM for that sender. */
  failMailFromWith?: (from: string) => SmtpReply | undefined
  /** Return a reply to refuse a message at the end of DATA (after its bytes arrived), by its recipients. */
  failDataWith?: (rcpts: string[]) => SmtpReply | undefined
  /** Defaults to true: clients may send without AUTH, and any credentials are accepted. */
  authOptional?: boolean
  /** Defaults to false. When true the server offers STARTTLS with smtp-server's built-in self-signed certificate. */
  starttls?: boolean
  /**
   * Holds every message after its data has arrived and before the final reply, until `release()`.
   * A message whose client hangs up meanwhile was never accepted, so it is not recorded.
   */
  holdReplies?: boolean
  /** Listen on this port instead of a free one, e.g. one a transport was already pointed at. */
  port?: number
  /**
   * Waits this long after a message's data before accepting it, as a slow receiving server would, so a client
   * always has messages in flight. A message whose client hangs up meanwhile was never accepted.
   */
  replyDelayMs?: number
}

export type ReceivedMessage = {
  /** `from` is '' for the null sender (`MAIL FROM:<>`), as bounces use. */
  envelope: { from: string; to: string[] }
  /** The DATA payload exactly as the client sent it (dot-unstuffed), for DKIM verification. */
  raw: Buffer
  parsed: ParsedMail
  auth?: { username: string; password: string }
  /** When the sink accepted it (Date.now()). */
  receivedAt: number
}

export type SmtpSink = {
  port: number
  url: string
  /** Mutated in place, so a reference taken before `reset()` stays live. */
  messages: ReceivedMessage[]
  waitForMessages: (count: number, timeoutMs?: number) => Promise<ReceivedMessage[]>
  /** With `holdReplies`: resolves once `count` messages are waiting for their reply. */
  waitForHeld: (count: number, timeoutMs?: number) => Promise<void>
  /** Stops holding: waiting messages get their reply (if their client is still there), later ones at once. */
  release: () => void
  reset: () => void
  close: () => Promise<void>
}

const ADDED = 'added'
const HELD = 'held'

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ReceivedMessage[] = []
  const arrivals = new EventEmitter()
  const credentials = new Map<string, { username: string; password: string }>()
  const closedSessions = new Set<string>()
  const held: string[] = []
  let releaseHeld: () => void = () => {}
  let holding = options.holdReplies
    ? new Promise<void>((resolve) => {
        releaseHeld = resolve
      })
    : undefined

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
    onMailFrom(address, _session, callback) {
      callback(refuseAddress(address, options.failMailFromWith))
    },
    onRcptTo(address, _session, callback) {
      callback(refuseAddress(address, options.failWith))
    },
    onData(stream, session, callback) {
      receiveMessage(stream, session, credentials.get(session.id))
        .then(async (message) => {
          const refusal = options.failDataWith?.(message.envelope.to)
          if (refusal) return callback(smtpError(refusal))
          if (holding) {
            held.push(session.id)
            arrivals.emit(HELD)
            await holding
            if (closedSessions.has(session.id)) return callback(new Error('client went away before the reply'))
          }
          if (options.replyDelayMs) {
            await delay(options.replyDelayMs)
            if (closedSessions.has(session.id)) return callback(new Error('client went away before the reply'))
          }
          record({ ...message, receivedAt: Date.now() })
          callback()
        })
        .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err))))
    },
    onClose(session) {
      credentials.delete(session.id)
      if (holding || options.replyDelayMs) closedSessions.add(session.id)
    },
  })

  // A client killed mid-transaction (the crash tests) resets its connection, which smtp-server reports as an
  // 'error' event; unheard, that would crash the test process. Only accepted messages are recorded anyway.
  server.on('error', () => {})
  const port = await listen(server, options.port ?? 0)
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitForMessages: (count, timeoutMs = 10_000) => waitForCount(messages, arrivals, count, timeoutMs),
    waitForHeld: async (count, timeoutMs = 10_000) => {
      await waitForCount(held, arrivals, count, timeoutMs, HELD)
    },
    release: () => {
      holding = undefined
      releaseHeld()
    },
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

function refuseAddress(
  address: SMTPServerAddress,
  failWith: ((address: string) => SmtpReply | undefined) | undefined,
): SMTPServerError | undefined {
  const reply = failWith?.(address.address)
  return reply ? smtpError(reply) : undefined
}

function smtpError(reply: SmtpReply): SMTPServerError {
  const err: SMTPServerError = new Error(reply.message)
  err.responseCode = reply.code
  return err
}

async function receiveMessage(
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
  auth: ReceivedMessage['auth'],
): Promise<Omit<ReceivedMessage, 'receivedAt'>> {
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

async function listen(server: SMTPServer, port: number): Promise<number> {
  const listening = once(server.server, 'listening')
  server.listen(port, '127.0.0.1')
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
  event = ADDED,
): Promise<T[]> {
  const signal = AbortSignal.timeout(timeoutMs)
  while (items.length < count) {
    try {
      await once(emitter, event, { signal })
    } catch {
      const what = event === HELD ? 'SMTP messages held for their reply' : 'SMTP messages'
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${count} ${what}, got ${items.length}`)
    }
  }
  return [...items]
}
