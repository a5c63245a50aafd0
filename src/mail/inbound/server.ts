import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { hostname } from 'node:os'
import { type AddressObject, simpleParser } from 'mailparser'
import {
  SMTPServer,
  type SMTPServerDataStream,
  type SMTPServerError,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server'
import type { DnsResolver } from '../dns.js'
import { type ComplaintReport, complaintReportOf } from './complaint-report.js'
import { mailauthResolver } from './mailauth-resolver.js'
import { bodyOf, type InboundMessage } from './message.js'
import { authenticateMessage } from './verdicts.js'

export type { InboundMessage }

export type InboundServerOptions = {
  host: string
  port: number
  /** Larger messages get 552; also advertised with the SIZE extension so senders can skip the upload. */
  maxMessageBytes: number
  /** Resolver for SPF, DKIM and DMARC (`createResolver`, so DNS_SERVERS applies); without one, the system's. */
  resolver?: DnsResolver
  /** Whether mail for this address is ours. Everything else gets 550, so the server is never an open relay. */
  acceptRecipient(address: string): Promise<boolean> | boolean
  /**
   * Must have stored the message when it resolves: the sender is told 250 only then, and 451 if it throws. A
   * message that is an ARF complaint report comes with what the report says.
   */
  onMessage(message: InboundMessage, report: ComplaintReport | undefined): Promise<void>
  /** Host name in the greeting and for SPF; defaults to the machine's. */
  serverName?: string
  /** PEM key and certificate to offer STARTTLS; without them the server speaks plain SMTP only. */
  tls?: { key: string | Buffer; cert: string | Buffer }
  maxClients?: number
  /** A connection's error (a client that resets mid-transaction, a failed TLS handshake): for the log, never fatal. */
  onConnectionError?(err: Error): void
}

export type InboundServer = { port: number; close(): Promise<void> }

// RFC 5321 4.5.3.1.8: a server must accept at least 100 recipients per message; more is a sign of abuse.
const maxRecipients = 100

function smtpError(code: number, message: string): SMTPServerError {
  return Object.assign(new Error(message), { responseCode: code })
}

export async function startInboundServer(options: InboundServerOptions): Promise<InboundServer> {
  const serverName = options.serverName ?? hostname()
  const resolver = options.resolver ? mailauthResolver(options.resolver) : undefined
  const server = new SMTPServer({
    ...tlsOptions(options.tls),
    name: serverName,
    banner: 'Mailroom inbound',
    size: options.maxMessageBytes,
    // No AUTH at all: this server only takes mail addressed to us, so there is nothing to log in for.
    authOptional: true,
    maxRecipients,
    // Reverse lookups would go to the system resolver and add latency for nothing we use.
    disableReverseLookup: true,
    ...(options.maxClients === undefined ? {} : { maxClients: options.maxClients }),
    logger: false,
    onRcptTo(address, _session, callback) {
      Promise.resolve()
        .then(() => options.acceptRecipient(address.address))
        .then(
          (accepted) => callback(accepted ? undefined : smtpError(550, '5.1.1 Recipient address rejected: not ours')),
          () => callback(smtpError(451, '4.3.0 Temporary failure, try again later')),
        )
    },
    onData(stream, session, callback) {
      receive(stream, session, { serverName, resolver, onMessage: options.onMessage }).then(
        () => callback(),
        (err: unknown) => callback(isSmtpError(err) ? err : smtpError(451, '4.3.0 Temporary failure, try again later')),
      )
    },
  })

  // smtp-server re-emits a connection's socket errors on the server; unheard, one client resetting its
  // connection in the middle of a message would crash the process.
  server.on('error', (err: Error) => options.onConnectionError?.(err))
  const listening = once(server.server, 'listening')
  server.listen(options.port, options.host)
  await listening
  const address = server.server.address()
  if (address === null || typeof address === 'string') throw new Error('inbound SMTP server is not on TCP')
  return { port: address.port, close: () => closeServer(server) }
}

function tlsOptions(tls: InboundServerOptions['tls']): SMTPServerOptions {
  return tls ? { key: tls.key, cert: tls.cert, disabledCommands: ['AUTH'] } : { disabledCommands: ['AUTH', 'STARTTLS'] }
}

function isSmtpError(err: unknown): err is SMTPServerError {
  return err instanceof Error && 'responseCode' in err
}

type ReceiveContext = {
  serverName: string
  resolver: ReturnType<typeof mailauthResolver> | undefined
  onMessage: InboundServerOptions['onMessage']
}

async function receive(stream: SMTPServerDataStream, session: SMTPServerSession, ctx: ReceiveContext): Promise<void> {
  const startedAt = Date.now()
  const chunks: Buffer[] = []
  // Read to the end even when oversized: the client is still sending and only then waits for our reply.
  for await (const chunk of stream) if (!stream.sizeExceeded) chunks.push(chunk)
  if (stream.sizeExceeded) throw smtpError(552, '5.3.4 Message exceeds the maximum size')
  const receivedAt = new Date()
  const raw = Buffer.concat(chunks)
  const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
  const recipients = session.envelope.rcptTo.map((rcpt) => rcpt.address)
  const [parsed, verdicts] = await Promise.all([
    // Parse a copy: the raw bytes must stay as received for DKIM.
    simpleParser(Buffer.from(raw)),
    authenticateMessage({
      raw,
      ip: session.remoteAddress,
      helo: session.hostNameAppearsAs || session.remoteAddress,
      sender,
      mta: ctx.serverName,
      resolver: ctx.resolver,
    }),
  ])
  const body = bodyOf(parsed)
  await ctx.onMessage(
    {
      messageId: parsed.messageId?.replace(/^<|>$/g, '') || randomUUID(),
      from: sender || parsed.from?.value[0]?.address || '',
      fromHeader: parsed.from?.text ?? '',
      to: firstAddress(parsed.to) ?? recipients[0] ?? '',
      subject: parsed.subject ?? '',
      timestamp: receivedAt.toISOString(),
      recipients,
      hasContent: body !== '',
      body,
      spamVerdict: 'DISABLED',
      virusVerdict: 'DISABLED',
      ...verdicts,
      processingTimeMillis: Date.now() - startedAt,
    },
    complaintReportOf(parsed),
  )
}

function firstAddress(field: AddressObject | AddressObject[] | undefined): string | undefined {
  const objects = Array.isArray(field) ? field : field ? [field] : []
  for (const object of objects) {
    for (const entry of object.value) {
      if (entry.address) return entry.address
      const member = entry.group?.find((groupMember) => groupMember.address)
      if (member?.address) return member.address
    }
  }
  return undefined
}

function closeServer(server: SMTPServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    // Without this, close waits up to 30 s for clients that keep their connection open.
    for (const connection of server.connections) connection.close()
  })
}
