import type { Database } from '../../db/client.js'
import { isConnectionLost } from '../../db/connection-loss.js'
import { domainOf } from '../../mail/address.js'
import type { MessageJob } from '../../mail/outbound/compose.js'
import type { ComposeJob } from '../../mail/outbound/compose-job.js'
import type { ContactRender } from '../../mail/outbound/contact-render.js'
import { ComposeError, type ComposePool } from '../../mail/outbound/dkim-pool.js'
import { type ComplaintLoop, feedbackHeaders } from '../../mail/outbound/feedback-headers.js'
import { type Transport, TransportError } from '../../mail/transports/index.js'
import type { LeaseKeeper } from './leases.js'
import type { PriorityGate } from './priority-gate.js'
import type { OutcomeRecorder } from './recorder.js'
import type { DkimSigningKey, ResolveDkimKey } from './signing-keys.js'
import {
  bulkPriority,
  type Claim,
  type ClaimedEmail,
  type EmailAttachmentRow,
  findAttachments,
  findSubmittedMessages,
  type SubmittedMessage,
} from './sql.js'
import type { TrackedLinkStore } from './tracked-links.js'

/** What to render for an email's contact when it is sent (on a compose thread), or why it must not be sent. */
export type Personalisation = { render: ContactRender } | { error: string }

/**
 * Says, for the claimed emails stored without their content (campaign mail, made for each contact at delivery
 * from the contact as it is then), what their compose threads render or why they must not be sent; emails missing
 * from the answer go out as stored.
 */
export type Personalise = (emails: readonly ClaimedEmail[]) => Promise<Map<string, Personalisation>>

export type RetryPolicy = {
  baseDelaySeconds: number
  maxDelaySeconds: number
  /** An email still failing temporarily this long after it was accepted is given up on. */
  maxAgeSeconds: number
  maxAttempts: number
}

export const defaultRetryPolicy: RetryPolicy = {
  baseDelaySeconds: 30,
  maxDelaySeconds: 3_600,
  maxAgeSeconds: 24 * 3_600,
  maxAttempts: 50,
}

/** Where open and click tracking links point and the key that signs them; tracked emails go out untracked without it. */
export type TrackingLinks = { publicUrl: string; secret: string }

/** What a claim's emails need besides their row, fetched once per claim. */
export type PreparedClaim = {
  attachments: Map<string, EmailAttachmentRow[]>
  personalised: Map<string, Personalisation> | undefined
  /** The messages taken over SMTP submission that some of the emails relay, by id. */
  submitted: Map<string, SubmittedMessage>
}

const maxErrorLength = 1_000
/** An email whose preparation lost its database connection (a restart) is tried again this soon, not a backoff later. */
const databaseRetryDelaySeconds = 1

/** 30 s · 2^(attempt-1), capped at an hour, ±20 % so a burst that failed together does not retry together. */
function retryDelaySeconds(attempts: number, policy: RetryPolicy): number {
  const delay = Math.min(policy.baseDelaySeconds * 2 ** Math.max(0, attempts - 1), policy.maxDelaySeconds)
  return delay * (0.8 + 0.4 * Math.random())
}

/** `code`: the SMTP reply code or the provider's error name, kept apart in the email's history. */
type Failure = { permanent: boolean; bounce: boolean; error: string; code?: string; retryDelaySeconds?: number }

function describeFailure(err: unknown): Failure {
  if (err instanceof TransportError) {
    return {
      permanent: err.permanent,
      bounce: err.permanent && err.bounce,
      error: (err.code ? `${err.code} ${err.message}` : err.message).slice(0, maxErrorLength),
      ...(err.code ? { code: err.code } : {}),
    }
  }
  // A message that cannot be built now never will be; anything else (database, a worker thread) may pass later.
  const message = err instanceof Error ? err.message : String(err)
  return {
    permanent: err instanceof ComposeError,
    bounce: false,
    error: message.slice(0, maxErrorLength),
    ...(isConnectionLost(err) && { retryDelaySeconds: databaseRetryDelaySeconds }),
  }
}

/** What to send for an email: the job its compose thread runs, and the envelope sender. */
type Outgoing = { job: ComposeJob; envelopeFrom: string }

function toOutgoing(
  email: ClaimedEmail,
  prepared: PreparedClaim,
  key: DkimSigningKey | undefined,
  tracking: TrackingLinks | undefined,
  render: ContactRender | undefined,
  loop: ComplaintLoop | undefined,
): Outgoing {
  const domain = domainOf(email.fromEmail)
  // Signed for the From header's domain, which is what receivers judge (DMARC), whatever the envelope says.
  const dkim = key ? { dkim: { domainName: domain, selector: key.selector, privateKeyPem: key.privateKeyPem } } : {}
  const tracked =
    tracking && email.tracked ? { tracking: { ...tracking, emailId: email.id, projectId: email.projectId } } : {}
  // Bulk: campaign mail (its List-Unsubscribe is rendered on the compose thread) or mail stored with one.
  const bulk = email.sourceType === 'CAMPAIGN' || 'List-Unsubscribe' in email.headers
  const feedback = feedbackHeaders({ ...email, emailId: email.id, bulk }, loop, key !== undefined)
  if (email.submittedMessageId !== null) {
    const submitted = prepared.submitted.get(email.submittedMessageId)
    if (!submitted) throw new ComposeError('the message submitted for this email is gone')
    return {
      job: { relayed: { raw: submitted.raw, subject: email.subject }, ...dkim, ...tracked, feedbackHeaders: feedback },
      envelopeFrom: submitted.mailFrom,
    }
  }
  return {
    job: {
      ...toComposeJob(email, prepared.attachments.get(email.id) ?? [], dkim, tracked, render),
      feedbackHeaders: feedback,
    },
    envelopeFrom: email.fromEmail,
  }
}

function toComposeJob(
  email: ClaimedEmail,
  attachments: EmailAttachmentRow[],
  dkim: Pick<MessageJob, 'dkim'>,
  tracked: Pick<MessageJob, 'tracking'>,
  render: ContactRender | undefined,
): MessageJob {
  return {
    message: {
      messageId: email.messageId,
      from: { email: email.fromEmail, name: email.fromName },
      to: { email: email.toEmail, name: email.toName },
      replyTo: email.replyTo,
      subject: email.subject,
      html: email.html,
      headers: email.headers,
      attachments: attachments.map((attachment) => ({
        filename: attachment.filename,
        contentType: attachment.contentType,
        content: attachment.content,
        contentId: attachment.contentId,
        disposition: attachment.disposition,
      })),
    },
    ...(render ? { render } : {}),
    ...dkim,
    ...tracked,
  }
}

/** A claim's attachments and personalisations, fetched once for all its emails. */
export async function prepareClaim(
  db: Database,
  personalise: Personalise | undefined,
  { emails, withAttachments }: Claim,
): Promise<PreparedClaim> {
  const attachments = new Map<string, EmailAttachmentRow[]>()
  const [attachmentRows, personalised, submitted] = await Promise.all([
    findAttachments(db, withAttachments),
    personalise?.(emails),
    findSubmittedMessages(db, emails),
  ])
  for (const row of attachmentRows) {
    attachments.set(row.emailId, [...(attachments.get(row.emailId) ?? []), row])
  }
  return { attachments, personalised, submitted: new Map(submitted.map((message) => [message.id, message])) }
}

export type DeliveryParts = {
  composePool: ComposePool
  /** Transactional mail overtakes campaign mail at the compose threads and at the transport. */
  composeGate: PriorityGate
  transportGate: PriorityGate
  transport: Transport
  recorder: OutcomeRecorder
  signingKey: ResolveDkimKey
  leases: LeaseKeeper
  tracking: TrackingLinks | undefined
  /** Set while complaint reports to `fbl@` a sending domain reach the inbound receiver: bulk mail then carries CFBL. */
  complaintLoop?: ComplaintLoop | undefined
  /** Where the links of tracked emails are stored before they leave, so their click URLs can be followed. */
  trackedLinks: TrackedLinkStore
  retryPolicy: RetryPolicy
  /** The outbox was killed (a crash test): nothing more is sent or recorded. */
  isKilled: () => boolean
  /** How long a transactional email took from due to the transport's reply: what paces campaign mail. */
  transactionalWaited?: (waitedMs: number) => void
}

/**
 * How long an email had been due when its claim took it, on the database's clock alone (no clock is compared
 * with another host's): the claim set `updated_at`, the insert or a retry set `created_at` and `next_attempt_at`.
 */
function dueForMs(email: ClaimedEmail): number {
  return Math.max(0, email.updatedAt.getTime() - Math.max(email.createdAt.getTime(), email.nextAttemptAt.getTime()))
}

/**
 * One claimed email's way out: compose and sign it on a compose thread, hand it to the transport, and record the
 * outcome (sent, bounced, failed, or a retry after a backoff). Never throws.
 */
export function createDelivery(parts: DeliveryParts) {
  const { composeGate, transportGate, recorder, leases, isKilled } = parts
  return async function deliver(email: ClaimedEmail, prepared: Promise<PreparedClaim>): Promise<void> {
    // The claim set `updated_at`: when this attempt began, for the email's history.
    const claimedAt = email.updatedAt.toISOString()
    // Called right after the claim returned, so the time from here is the rest of the wait.
    const claimReturned = performance.now()
    try {
      const claim = await prepared
      if (isKilled()) return
      const personal = claim.personalised?.get(email.id)
      if (personal && 'error' in personal) throw new ComposeError(personal.error)
      const key = await parts.signingKey(email.projectId, domainOf(email.fromEmail))
      const urgent = email.priority < bulkPriority
      const { job, envelopeFrom } = toOutgoing(email, claim, key, parts.tracking, personal?.render, parts.complaintLoop)
      const { raw, subject, links } = await composeGate.run(urgent, () => parts.composePool.compose(job))
      // Another claim may be sending it now; sending it here too would only deliver it twice.
      if (leases.isLost(email)) return
      // A click must find its link from the moment the email is out: stored first (at once when stored before).
      if (links) await parts.trackedLinks.save(email.projectId, links)
      const { providerMessageId, response } = await transportGate.run(urgent, () =>
        parts.transport.send({
          projectId: email.projectId,
          emailId: email.id,
          campaignId: email.campaignId,
          messageId: email.messageId,
          envelope: { from: envelopeFrom, to: [email.toEmail] },
          ...(key?.returnPathDomain ? { returnPathDomain: key.returnPathDomain } : {}),
          subject,
          raw,
        }),
      )
      if (isKilled()) return
      if (urgent) parts.transactionalWaited?.(dueForMs(email) + performance.now() - claimReturned)
      const sentAt = new Date().toISOString()
      recorder.sent(
        {
          id: email.id,
          attempts: email.attempts,
          providerMessageId,
          sentAt,
          claimedAt,
          ...(response ? { response: response.slice(0, maxErrorLength) } : {}),
          ...(personal ? { subject } : {}),
        },
        email.createdAt,
      )
    } catch (err) {
      if (isKilled()) return
      const { permanent, bounce, error, code, retryDelaySeconds: soon } = describeFailure(err)
      const claim = { id: email.id, attempts: email.attempts, claimedAt, ...(code ? { code } : {}) }
      if (bounce) return recorder.bounced({ ...claim, error, bounce: true })
      const policy = parts.retryPolicy
      const expired = email.createdAt.getTime() + policy.maxAgeSeconds * 1_000 <= Date.now()
      if (permanent || expired || email.attempts >= policy.maxAttempts) {
        recorder.failed({ ...claim, error: permanent ? error : `gave up after ${email.attempts} attempts: ${error}` })
      } else {
        recorder.retry({ ...claim, error, delaySeconds: soon ?? retryDelaySeconds(email.attempts, policy) })
      }
    }
  }
}
