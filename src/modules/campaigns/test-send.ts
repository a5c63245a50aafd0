import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { contacts, emails, memberships, users } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { normalizeEmail } from '../../mail/address.js'
import { contactLinks, renderForContact } from '../../mail/outbound/contact-render.js'
import { renderEmail } from '../../mail/outbound/render.js'
import { previewSubscriptionUrls } from '../../mail/outbound/subscription-links.js'
import { enqueueEmails, wakeOutbox } from '../delivery/service.js'
import { assertSenderAllowed } from '../domains/service.js'
import { findCampaignRow } from './view.js'

/** Marks the message as a test for the member's mail filters, as Plunk's `X-Plunk-Test` does. */
const testHeader = 'X-Mailroom-Test'

async function assertProjectMember(db: Executor, projectId: string, email: string): Promise<void> {
  const [member] = await db
    .select({ userId: users.id })
    .from(users)
    .innerJoin(memberships, eq(memberships.userId, users.id))
    .where(and(eq(memberships.projectId, projectId), eq(users.email, email)))
  if (!member) {
    throw new AppError('FORBIDDEN', 'Test emails can only be sent to the address of a member of this project', {
      suggestion: 'Use the email address of your own account, or add the recipient to the project as a member',
    })
  }
}

/** The member's own contact in the project, when there is one, to render the test with real data. */
async function findContact(db: Executor, projectId: string, email: string) {
  const [contact] = await db
    .select({ id: contacts.id, email: contacts.email, data: contacts.data })
    .from(contacts)
    .where(and(eq(contacts.projectId, projectId), eq(contacts.email, email)))
  return contact
}

/**
 * `POST /campaigns/:id/test`: one copy of the campaign, subject prefixed with `[TEST]`, to a member of the
 * project only, so the route cannot mail strangers. Unlike Plunk, which sends the Liquid source as it is, the
 * body is rendered with the member's contact data (empty data when they have no contact), so the test shows
 * what recipients will see, and its unsubscribe, subscribe and manage links open the pages recipients reach. It goes through the outbox like any email, but is no part of the campaign (no
 * campaign id, so its counters ignore it, and no contact id, so it is no contact's email activity) and is
 * never tracked.
 */
export async function sendCampaignTest(
  ctx: AppContext,
  projectId: string,
  campaignId: string,
  address: string,
): Promise<string> {
  const email = normalizeEmail(address)
  const campaign = await findCampaignRow(ctx.db, projectId, campaignId)
  await assertProjectMember(ctx.db, projectId, email)
  await assertSenderAllowed(ctx.db, ctx.config, projectId, campaign.from)
  const contact = await findContact(ctx.db, projectId, email)
  // The member's own contact gets its own working links: unsubscribing there unsubscribes that contact alone.
  // A member who is no contact gets preview links to the same pages, which change nothing and make no contact.
  const rendered = contact
    ? await renderForContact({
        subject: campaign.subject,
        body: campaign.body,
        contact,
        links: contactLinks(ctx.config, { projectId, contactId: contact.id }),
        listUnsubscribe: false,
      })
    : await renderEmail(campaign, {
        email,
        data: {},
        ...previewSubscriptionUrls(ctx.config.publicUrl, ctx.config.secret, { projectId, email }),
      })
  await ctx.db.transaction(async (tx) => {
    const [emailId] = await enqueueEmails(tx, projectId, [
      {
        from: { email: campaign.from, name: campaign.fromName },
        to: { email },
        replyTo: campaign.replyTo,
        subject: `[TEST] ${rendered.subject}`,
        html: rendered.html,
        headers: { [testHeader]: 'true' },
        sourceType: 'TRANSACTIONAL',
        marketing: false,
      },
    ])
    // The project's tracking mode decides at enqueue; `ENABLED` would track even non-marketing mail.
    if (emailId) await tx.update(emails).set({ tracked: false }).where(eq(emails.id, emailId))
  })
  wakeOutbox(ctx.pool)
  return email
}
