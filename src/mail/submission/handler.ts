/**
 * What the SMTP submission server (the relay, `server.ts`) asks of the application at each step of a
 * conversation. Each step may refuse by throwing an `SmtpRefusal`, which the client sees as that reply; anything
 * else thrown is a temporary failure (451).
 */
export type SubmissionHandler = {
  /** AUTH PLAIN or LOGIN: the project whose secret key the password is; refuses with 535 (or 421 when rate limited). */
  authenticate(login: { username: string; password: string; remoteAddress: string }): Promise<{ projectId: string }>
  /** MAIL FROM: whether the project may send now and from this address. */
  checkSender(projectId: string, address: string): Promise<void>
  /** RCPT TO: whether this recipient can be taken (e.g. 550 5.1.1 when suppressed), the others being judged alone. */
  checkRecipient(projectId: string, address: string): Promise<void>
  /**
   * End of DATA: stores the message for every accepted recipient, durably, before it resolves (the 250 is sent
   * only then); one email per recipient, ids in recipient order.
   */
  accept(submission: Submission): Promise<{ emailIds: string[] }>
}

export type Submission = {
  projectId: string
  /** The envelope sender (MAIL FROM). */
  mailFrom: string
  /** The envelope recipients that RCPT TO accepted, in order. */
  recipients: string[]
  /** The message as the client sent it, CRLF line endings, dot-stuffing removed. */
  raw: Buffer
  remoteAddress: string
  /**
   * How many sessions of this server had a mail transaction open (MAIL FROM taken, DATA not yet answered) when
   * this one's DATA ended, itself included: a hint that more submissions are about to end, for a group commit.
   * Absent: no hint.
   */
  openTransactions?: number
}

/** A refusal the client sees in the conversation: `responseCode` and the message after it (with its enhanced code). */
export class SmtpRefusal extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message)
    this.name = 'SmtpRefusal'
  }
}
