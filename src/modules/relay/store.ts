import type { AppContext } from '../../context.js'
import { withNamedStatements } from '../../db/named-statement.js'
import { normalizeEmail } from '../../mail/address.js'
import { addUsage, limitExceeded } from '../billing/usage.js'
import { upsertContacts } from '../contacts/service.js'
import { enqueueEmails, type NewEmail } from '../delivery/service.js'
import { claimIdempotencyKey, type IdempotencyClaim } from '../idempotency/service.js'
import type { SubmittedMessage } from './message-headers.js'
import { insertSubmittedMessages } from './sql.js'

/** A submission ready to store: its message read, its recipients once each. */
export type SubmissionToStore = {
  id: string
  projectId: string
  mailFrom: string
  message: SubmittedMessage
  /** Distinct addresses, in the order the client gave them. */
  recipients: readonly string[]
  claim?: IdempotencyClaim
}

const contactKey = (projectId: string, email: string) => `${projectId} ${normalizeEmail(email)}`

function emailsOf(item: SubmissionToStore, contactIds: ReadonlyMap<string, string>): NewEmail[] {
  return item.recipients.map((recipient) => ({
    from: item.message.from,
    to: { email: recipient },
    subject: item.message.subject,
    // Nothing shows an email's stored HTML, and a relayed one is sent from the stored message: no copy.
    html: '',
    contactId: contactIds.get(contactKey(item.projectId, recipient)) ?? null,
    sourceType: 'TRANSACTIONAL',
    marketing: false,
    submitted: { messageId: item.message.messageId, submittedMessageId: item.id },
  }))
}

/**
 * The one transaction of accepted submissions, for one or a group commit of many, with set-based statements: the
 * Idempotency-Key claims, each recipient upserted as a contact (a new one unsubscribed, an existing one unchanged,
 * as /v1/send does), the messages stored once each, one email per recipient pointing to its message, and the
 * monthly transactional usage charged last (a project over its cap fails it all: nothing is stored). Returns each
 * submission's email ids, in its recipients' order.
 */
export async function storeSubmissions(ctx: AppContext, items: readonly SubmissionToStore[]): Promise<string[][]> {
  const contacts = new Map<string, { projectId: string; email: string }>()
  for (const { projectId, recipients } of items) {
    for (const email of recipients) contacts.set(contactKey(projectId, email), { projectId, email })
  }
  return ctx.db.transaction(async (transaction) => {
    // Batches of a few messages: parsing and planning the statements cost more than running them.
    const tx = withNamedStatements(transaction)
    for (const item of items) if (item.claim) await claimIdempotencyKey(tx, item.projectId, item.claim)
    const upserted = await upsertContacts(
      tx,
      [...contacts.values()].map((contact) => ({ ...contact, subscribedIfNew: false })),
    )
    const keys = [...contacts.keys()]
    const contactIds = new Map(upserted.map(({ contact }, index) => [keys[index] ?? '', contact.id]))
    await insertSubmittedMessages(
      tx,
      items.map((item) => ({
        id: item.id,
        projectId: item.projectId,
        mailFrom: item.mailFrom,
        raw: item.message.raw,
        idempotencyKey: item.claim?.key ?? null,
      })),
    )
    const emailIds: string[][] = []
    for (const projectId of new Set(items.map((item) => item.projectId))) {
      const ofProject = items.flatMap((item, index) => (item.projectId === projectId ? [index] : []))
      const ids = await enqueueEmails(
        tx,
        projectId,
        ofProject.flatMap((index) => {
          const item = items[index]
          return item ? emailsOf(item, contactIds) : []
        }),
      )
      let next = 0
      for (const index of ofProject) {
        const count = items[index]?.recipients.length ?? 0
        emailIds[index] = ids.slice(next, next + count)
        next += count
      }
    }
    const counts = new Map<string, number>()
    for (const item of items) counts.set(item.projectId, (counts.get(item.projectId) ?? 0) + item.recipients.length)
    const [refused] = await addUsage(tx, 'transactional', counts)
    if (refused) throw await limitExceeded(tx, refused, 'transactional', counts.get(refused) ?? 0)
    return items.map((_, index) => emailIds[index] ?? [])
  })
}
