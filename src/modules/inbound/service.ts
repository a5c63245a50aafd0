import addressparser from 'nodemailer/lib/addressparser'
import type { AppContext } from '../../context.js'
import type { inboundSource } from '../../db/schema/index.js'
import { publishEvents } from '../../events/bus.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import { domainOf } from '../../mail/address.js'
import type { ComplaintReport } from '../../mail/inbound/complaint-report.js'
import type { InboundMessage } from '../../mail/inbound/message.js'
import { addUsage } from '../billing/usage.js'
import { contactEmail } from '../contacts/schemas.js'
import { upsertContact } from '../contacts/service.js'
import { takeComplaintReport } from './complaints.js'
import { claimInboundEmails, findVerifiedDomainOwners, isVerifiedDomain } from './sql.js'
import { isValidUnsubscribeToken, unsubscribeByMail, unsubscribeTokenOfRecipient } from './unsubscribe.js'

const emailReceivedEvent = 'email.received'

export type InboundSource = (typeof inboundSource)[number]

export type InboundOutcome = {
  /** Projects that got an `email.received` event (not those that had this message already). */
  projectIds: string[]
  /** Unsubscribe mailboxes among the recipients. */
  unsubscribes: number
  /** Emails an ARF complaint report to a sending domain's complaint mailbox marked COMPLAINED. */
  complaints: number
}

/**
 * RCPT TO: an address at a domain some project has verified, or a genuine unsubscribe mailbox. Everything
 * else is refused, so the receiver never relays and never stores mail nobody here can see.
 */
export async function acceptsInboundRecipient(ctx: AppContext, address: string): Promise<boolean> {
  const token = unsubscribeTokenOfRecipient(ctx, address)
  if (token !== undefined) return isValidUnsubscribeToken(ctx, token)
  const domain = domainOf(address)
  return domain !== '' && isVerifiedDomain(ctx.db, domain)
}

/**
 * Turns a received message into one `email.received` event per project owning a recipient's verified domain,
 * durably, before it resolves (the SMTP receiver answers 250 only then). Each project's event lists only its
 * own recipients, so no project learns who else (Bcc included) got the message. Mail to an unsubscribe
 * mailbox unsubscribes, and a complaint report taken at a complaint mailbox marks the email it reports
 * (`complaints.ts`): neither is an `email.received`.
 */
export async function receiveInboundMessage(
  ctx: AppContext,
  source: InboundSource,
  message: InboundMessage,
  report?: ComplaintReport,
): Promise<InboundOutcome> {
  const { mailboxes, complaints } = await takeComplaintReport(ctx, message, report)
  const domainRecipients: string[] = []
  let unsubscribes = 0
  for (const recipient of message.recipients) {
    const token = unsubscribeTokenOfRecipient(ctx, recipient)
    if (mailboxes.has(recipient)) continue
    if (token === undefined) domainRecipients.push(recipient)
    else if (isValidUnsubscribeToken(ctx, token)) {
      await unsubscribeByMail(ctx, token)
      unsubscribes++
    }
  }
  const recipientsByProject = await projectRecipients(ctx, domainRecipients)
  if (recipientsByProject.size === 0) return { projectIds: [], unsubscribes, complaints }

  const author = authorOf(message)
  const projectIds = await ctx.db.transaction(async (tx) => {
    const claimed = await claimInboundEmails(tx, [...recipientsByProject.keys()], source, message.messageId)
    // A project over its monthly inbound cap gets no event; the claim stays, so a redelivery is not counted again.
    const refused = await addUsage(tx, 'inbound', new Map([...claimed].map((projectId) => [projectId, 1])))
    for (const projectId of refused) claimed.delete(projectId)
    // One statement per owning project: a domain is shared by a handful of projects at most.
    for (const [projectId, recipients] of recipientsByProject) {
      if (!claimed.has(projectId)) continue
      const data = { ...message, to: recipients[0] ?? message.to, recipients }
      if (author) {
        await upsertContact(
          tx,
          projectId,
          { email: author },
          { subscribedIfNew: false, events: [{ name: emailReceivedEvent, data }] },
        )
      } else {
        await publishEvents(tx, [{ projectId, contactId: null, name: emailReceivedEvent, data }])
      }
    }
    return [...claimed]
  })
  if (projectIds.length > 0) wakeEventDispatcher(ctx.pool)
  return { projectIds, unsubscribes, complaints }
}

/** Recipients grouped by the projects that verified their domain, in recipient order. */
async function projectRecipients(ctx: AppContext, recipients: readonly string[]): Promise<Map<string, string[]>> {
  const domains = [...new Set(recipients.map(domainOf).filter((domain) => domain !== ''))]
  const owners = await findVerifiedDomainOwners(ctx.db, domains)
  const byProject = new Map<string, string[]>()
  for (const owner of owners) {
    const own = recipients.filter((recipient) => domainOf(recipient) === owner.domain)
    byProject.set(owner.projectId, [...(byProject.get(owner.projectId) ?? []), ...own])
  }
  return byProject
}

/**
 * The contact a received message belongs to: its author (the From header address), not the envelope sender,
 * which is often a bounce address of the sender's provider. Falls back to the envelope sender; undefined when
 * neither is a usable address (the event then has no contact).
 */
function authorOf(message: InboundMessage): string | undefined {
  const header = addressparser(message.fromHeader, { flatten: true })[0]?.address
  for (const candidate of [header, message.from]) {
    const parsed = contactEmail.safeParse(candidate?.trim().toLowerCase())
    if (parsed.success) return parsed.data
  }
  return undefined
}

export type SesInboundResult = { kind: 'received'; outcome: InboundOutcome } | { kind: 'ignored'; reason: string }

/**
 * An Amazon SES receiving notification (the SNS `Message`, as a string or parsed), after the caller verified
 * the SNS signature. Anything that is not a well-formed `Received` notification is ignored, never thrown, so
 * the webhook can answer 200 and SNS stops retrying; a redelivered notification publishes nothing new.
 */
export async function handleSesInboundNotification(ctx: AppContext, message: unknown): Promise<SesInboundResult> {
  // Loaded on first use, as the SMTP receiver is: mailparser and sanitize-html weigh ~30 MB at rest.
  const { parseSesInbound } = await import('../../mail/aws/ses-inbound.js')
  const parsed = await parseSesInbound(message)
  if (parsed.kind === 'ignored') return parsed
  return { kind: 'received', outcome: await receiveInboundMessage(ctx, 'ses', parsed.message) }
}
