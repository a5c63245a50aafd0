/** One message on its way out, already composed and signed. */
export type OutgoingMessage = {
  projectId: string
  emailId: string
  /** Set for a campaign email; the capture transport keeps it, for the campaign's captured count. */
  campaignId?: string | null
  /** Our Message-ID, without angle brackets. */
  messageId: string
  envelope: { from: string; to: string[] }
  /**
   * The sender domain's verified return-path (MAIL FROM) domain. SMTP sends with it as the envelope sender's
   * domain; SES ignores it, having been told the domain as its identity's MAIL FROM (mail/aws/ses-mail-from.ts).
   */
  returnPathDomain?: string
  subject: string
  raw: Buffer
}

type SendResult = {
  providerMessageId: string
  /** The receiving server's final reply (SMTP: `250 2.0.0 Ok: queued as …`), kept in the email's history. */
  response?: string
}

export type Transport = {
  /** How many sends keep it busy without queueing inside it; the outbox holds the rest, urgent ones first. */
  concurrency?: number
  /** Resolves once the transport has accepted the message; throws a `TransportError` otherwise. */
  send(message: OutgoingMessage): Promise<SendResult>
  /** Lets sends in progress finish, unless `force` drops them (they are retried later). */
  close(options?: { force?: boolean }): Promise<void>
}

/**
 * A refusal the outbox can act on: permanent ones fail the email, the others are retried later. `bounce`
 * marks a permanent refusal of the recipient or of the message by the receiving server, which says the
 * address must not be mailed again; other permanent ones (our sender refused, bad credentials) do not.
 */
export class TransportError extends Error {
  override name = 'TransportError'
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly code?: string,
    readonly bounce = false,
  ) {
    super(message)
  }
}
