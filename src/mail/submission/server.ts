import { once } from 'node:events'
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server'
import type { Logger } from '../../logger.js'
import type { CertificateSource } from './certificates.js'
import { type Conversation, createConversation } from './conversation.js'
import type { SubmissionHandler } from './handler.js'

export type SubmissionServerOptions = {
  /** Where both listeners bind. */
  host: string
  /** Submission with STARTTLS required before AUTH (587); 0 for a free port. */
  starttlsPort: number
  /** Submission over implicit TLS (465); 0 for a free port. */
  tlsPort: number
  /** The key and certificate both listeners serve, swapped in for new connections on change; closed with the server. */
  tls: CertificateSource
  /** Recipients taken per message; further RCPT TO get 452 4.5.3. */
  maxRecipients: number
  /** Advertised with SIZE; a larger message gets 552 5.3.4. */
  maxMessageBytes: number
  handler: SubmissionHandler
  /** The host name in the greeting: the one users put in their apps. */
  serverName: string
  log: Logger
  /** A connection's error (a reset, a failed TLS handshake): for the log, never fatal. Default: logged at debug. */
  onConnectionError?(err: Error): void
  /** How long a client may stay silent when it owes a command or data; default 5 minutes (RFC 5321 4.5.3.2.7). */
  idleTimeoutMs?: number
  /** The most a DATA may take, however steadily it trickles; default 10 minutes (40 MB at about 0.5 Mbit/s). */
  dataTimeoutMs?: number
}

export type SubmissionServer = {
  starttlsPort: number
  tlsPort: number
  /** Stops listening, lets messages being stored get their 250, and ends every other connection with 421. */
  close(): Promise<void>
}

// How long close waits for messages being stored before it ends their connections anyway.
const closeGraceMs = 15_000

/** The SMTP submission relay: one listener that requires STARTTLS before AUTH, one with implicit TLS. */
export async function startSubmissionServer(options: SubmissionServerOptions): Promise<SubmissionServer> {
  const servers: SMTPServer[] = []
  let closing = false
  const cutOff = (session: SMTPServerSession, reply: string) => {
    for (const server of servers) {
      for (const connection of server.connections) if (connection.session === session) connection.send(421, reply)
    }
  }
  const conversation = createConversation({
    handler: options.handler,
    maxRecipients: options.maxRecipients,
    maxMessageBytes: options.maxMessageBytes,
    dataTimeoutMs: options.dataTimeoutMs ?? 10 * 60_000,
    log: options.log,
    cutOff,
  })
  // While closing, a connection whose message was just stored ends right after its 250.
  conversation.onReplied((session) => {
    if (!closing) return
    for (const server of servers) {
      for (const connection of server.connections) if (connection.session === session) connection.close()
    }
  })

  const starttls = createServer(options, conversation, false)
  const implicit = createServer(options, conversation, true)
  servers.push(starttls, implicit)
  options.tls.onChange((pair) => {
    for (const server of servers) {
      try {
        server.updateSecureContext({ key: pair.key, cert: pair.cert })
      } catch (err) {
        options.log.error({ err }, 'SMTP relay: the new TLS certificate could not be applied')
      }
    }
  })

  try {
    const starttlsPort = await listen(starttls, options.starttlsPort, options.host)
    const tlsPort = await listen(implicit, options.tlsPort, options.host)
    return {
      starttlsPort,
      tlsPort,
      async close() {
        closing = true
        options.tls.close()
        await Promise.all(servers.map((server) => closeServer(server, conversation)))
      },
    }
  } catch (err) {
    options.tls.close()
    await Promise.all(servers.map((server) => closeServer(server, conversation)))
    throw err
  }
}

function createServer(options: SubmissionServerOptions, conversation: Conversation, implicitTls: boolean): SMTPServer {
  const { key, cert } = options.tls.current()
  const server = new SMTPServer({
    secure: implicitTls,
    key,
    cert,
    // The defaults still allow TLS 1.0 for old MTAs; submission clients have all had 1.2 for a decade.
    minVersion: 'TLSv1.2',
    name: options.serverName,
    banner: 'Mailroom submission',
    size: options.maxMessageBytes,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    authRequiredMessage: '5.7.0 Authentication required',
    // smtp-server's own refusal of AUTH before STARTTLS is a 538; onAuth answers 530 instead.
    allowInsecureAuth: true,
    socketTimeout: options.idleTimeoutMs ?? 5 * 60_000,
    closeTimeout: closeGraceMs,
    disableReverseLookup: true,
    logger: false,
    onAuth: conversation.onAuth,
    onMailFrom: conversation.onMailFrom,
    onRcptTo: conversation.onRcptTo,
    onData: conversation.onData,
    onClose: conversation.onClose,
  } satisfies SMTPServerOptions)
  // smtp-server re-emits a connection's socket errors on the server; unheard, one client resetting its
  // connection would crash the process.
  server.on('error', (err: Error) => {
    if (options.onConnectionError) options.onConnectionError(err)
    else options.log.debug({ err }, 'SMTP relay connection error')
  })
  return server
}

async function listen(server: SMTPServer, port: number, host: string): Promise<number> {
  const listening = once(server.server, 'listening')
  server.listen(port, host)
  try {
    await listening
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err)
    throw new Error(`SMTP relay cannot listen on ${host}:${port}: ${reason}`, { cause: err })
  }
  const address = server.server.address()
  if (address === null || typeof address === 'string') throw new Error('SMTP relay is not on TCP')
  return address.port
}

function closeServer(server: SMTPServer, conversation: Conversation): Promise<void> {
  if (!server.server.listening) return Promise.resolve()
  return new Promise((resolve) => {
    server.close(() => resolve())
    // A message being stored gets its 250 first (conversation.onReplied then ends the connection); the others
    // have nothing in flight that a 421 loses.
    for (const connection of server.connections) {
      if (!conversation.accepting.has(connection.session)) connection.send(421, '4.3.2 Server shutting down')
    }
  })
}
