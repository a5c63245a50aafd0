import type {
  SMTPServerDataStream,
  SMTPServerEnvelope,
  SMTPServerError,
  SMTPServerOptions,
  SMTPServerSession,
} from 'smtp-server'
import type { Logger } from '../../logger.js'
import { SmtpRefusal, type SubmissionHandler } from './handler.js'
import { findMessageProblem } from './message-checks.js'
import { DataDeadline, readMessage } from './read-message.js'

export type ConversationOptions = {
  handler: SubmissionHandler
  maxRecipients: number
  maxMessageBytes: number
  /** The most a DATA may take from its 354 to its final dot, however steadily the client trickles bytes. */
  dataTimeoutMs: number
  log: Logger
  /** Ends a connection with a 421 (the DATA deadline); smtp-server gives its hooks the session only. */
  cutOff(session: SMTPServerSession, reply: string): void
}

/** The steps of a conversation a server still to answer; `accepting` lists the sessions whose DATA is being stored. */
export type Conversation = Pick<SMTPServerOptions, 'onAuth' | 'onMailFrom' | 'onRcptTo' | 'onData' | 'onClose'> & {
  accepting: Set<SMTPServerSession>
  /** Called by the server once the reply to a DATA is written. */
  onReplied(listener: (session: SMTPServerSession) => void): void
}

// Past this many RCPT commands in one transaction a client is not honest about the 452s it got: cut it off, so
// 10,000 pipelined RCPT TO cost a thousand short replies and then nothing.
const rcptCommandsBeyondLimit = 1_000

const temporaryFailure = () => new SmtpRefusal(451, '4.3.0 Temporary failure, try again later')

/**
 * The relay's answer at each command: AUTH, MAIL FROM and RCPT TO ask the application (`SubmissionHandler`), DATA
 * checks the message's form here first. An `SmtpRefusal` is the client's reply as it is; anything else is logged
 * and answered as a temporary failure.
 */
export function createConversation(options: ConversationOptions): Conversation {
  const { handler, log } = options
  const rcptCommands = new WeakMap<SMTPServerEnvelope, number>()
  const accepting = new Set<SMTPServerSession>()
  // Sessions with a mail transaction open, from an accepted MAIL FROM to the reply to its DATA (or the end of the
  // connection; a transaction ended by RSET stays counted until then). Only a hint for the group commit.
  const openTransactions = new Set<SMTPServerSession>()
  const repliedListeners: ((session: SMTPServerSession) => void)[] = []

  const refusalOf = (err: unknown, command: string, session: SMTPServerSession): SMTPServerError => {
    if (err instanceof SmtpRefusal) return err
    log.error({ err, command, remoteAddress: session.remoteAddress }, 'SMTP relay: the application failed')
    return temporaryFailure()
  }

  return {
    accepting,
    onReplied: (listener) => repliedListeners.push(listener),

    onAuth(auth, session, callback) {
      // smtp-server would answer 538 (its own code); RFC 3207 and clients expect 530.
      if (!session.secure) return callback(new SmtpRefusal(530, '5.7.0 Must issue a STARTTLS command first'))
      handler
        .authenticate({
          username: auth.username ?? '',
          password: auth.password ?? '',
          remoteAddress: session.remoteAddress,
        })
        .then(
          ({ projectId }) => callback(null, { user: { projectId } }),
          (err: unknown) => {
            if (err instanceof SmtpRefusal) return callback(err)
            // Never the login itself: its password is a secret key.
            log.error({ err, command: 'AUTH', remoteAddress: session.remoteAddress }, 'SMTP relay: login check failed')
            callback(new SmtpRefusal(454, '4.7.0 Temporary authentication failure, try again later'))
          },
        )
    },

    onMailFrom(address, session, callback) {
      if (address.address === '') {
        return callback(new SmtpRefusal(553, '5.1.7 A sender address is required (MAIL FROM:<> is for bounces)'))
      }
      handler.checkSender(projectOf(session), address.address).then(
        () => {
          openTransactions.add(session)
          callback()
        },
        (err: unknown) => callback(refusalOf(err, 'MAIL FROM', session)),
      )
    },

    onRcptTo(address, session, callback) {
      const { envelope } = session
      const count = (rcptCommands.get(envelope) ?? 0) + 1
      rcptCommands.set(envelope, count)
      if (count > options.maxRecipients + rcptCommandsBeyondLimit) {
        return callback(new SmtpRefusal(421, '4.5.3 Too many RCPT TO commands in one message, closing the connection'))
      }
      if (envelope.rcptTo.length >= options.maxRecipients && !hasRecipient(envelope, address.address)) {
        return callback(new SmtpRefusal(452, `4.5.3 Too many recipients (at most ${options.maxRecipients} a message)`))
      }
      handler.checkRecipient(projectOf(session), address.address).then(
        () => callback(),
        (err: unknown) => callback(refusalOf(err, 'RCPT TO', session)),
      )
    },

    onData(stream, session, callback) {
      const reply = (err: SMTPServerError | null, message?: string) => {
        accepting.delete(session)
        openTransactions.delete(session)
        callback(err, message)
        for (const listener of repliedListeners) listener(session)
      }
      receive(stream, session).then(
        (message) => reply(null, message),
        (err: unknown) => reply(refusalOf(err, 'DATA', session)),
      )
    },

    onClose(session) {
      openTransactions.delete(session)
    },
  }

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const received = await readMessage(stream, options.dataTimeoutMs).catch((err: unknown) => {
      if (err instanceof DataDeadline) options.cutOff(session, '4.4.2 The message took too long to arrive')
      log.info(
        { remoteAddress: session.remoteAddress, reason: err instanceof Error ? err.message : String(err) },
        'SMTP relay: a message did not arrive in full; nothing stored',
      )
      // The client is gone or cut off and reads no reply; this one only ends the transaction.
      throw temporaryFailure()
    })
    if (received.oversized) {
      throw new SmtpRefusal(552, `5.3.4 Message exceeds the maximum size of ${options.maxMessageBytes} bytes`)
    }
    const { envelope } = session
    const problem = findMessageProblem(received.raw, envelope.bodyType === '8bitmime')
    if (problem) throw problem
    accepting.add(session)
    const { emailIds } = await handler.accept({
      projectId: projectOf(session),
      mailFrom: envelope.mailFrom ? envelope.mailFrom.address : '',
      recipients: envelope.rcptTo.map((recipient) => recipient.address),
      raw: received.raw,
      remoteAddress: session.remoteAddress,
      openTransactions: Math.max(1, openTransactions.size),
    })
    const [first] = emailIds
    return `2.0.0 Queued as ${first}${emailIds.length > 1 ? ` and ${emailIds.length - 1} more` : ''}`
  }
}

function hasRecipient(envelope: SMTPServerEnvelope, address: string): boolean {
  const key = address.toLowerCase()
  return envelope.rcptTo.some((recipient) => recipient.address.toLowerCase() === key)
}

/** The project AUTH logged in to; smtp-server refuses MAIL, RCPT and DATA before AUTH, so it is always there. */
function projectOf(session: SMTPServerSession): string {
  const user: unknown = session.user
  if (typeof user === 'object' && user !== null && 'projectId' in user && typeof user.projectId === 'string') {
    return user.projectId
  }
  throw new Error('SMTP relay: a transaction without a login')
}
