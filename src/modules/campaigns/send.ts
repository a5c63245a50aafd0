import { and, eq, inArray, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { campaigns } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { publishEvents } from '../../events/bus.js'
import { addUsage, assertWithinLimit, campaignBlockedEvent, chargeUsage } from '../billing/usage.js'
import { assertSenderAllowed } from '../domains/service.js'
import { countAudience } from './audience.js'
import { assertMayForce, gateCampaignSend, type SendRequest } from './presend/send-gate.js'
import { wakeCampaignsLoop } from './wake.js'

export type CampaignRecord = typeof campaigns.$inferSelect

const sendableStates: ReadonlySet<CampaignRecord['status']> = new Set(['DRAFT', 'SCHEDULED'])

/** The campaign, locked for the rest of the transaction: sends, cancels and edits of one campaign take turns. */
export async function lockCampaign(tx: Executor, projectId: string, id: string): Promise<CampaignRecord> {
  const [campaign] = await tx
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.projectId, projectId)))
    .for('update')
  if (!campaign) throw notFound('Campaign')
  return campaign
}

/** How far in the past a `scheduledFor` still means now: the client's clock may run a little behind ours. */
const scheduledForSkewMs = 60_000

function scheduledForError(message: string, code: 'invalid_date' | 'too_small'): AppError {
  return new AppError('BAD_REQUEST', message, { errors: [{ field: 'scheduledFor', message, code }] })
}

/**
 * Any string `new Date()` reads is a time (the spec); omitted, null or empty means now. A time more than a minute
 * past is refused, as Plunk refuses it: a stale date copied from an example must never mail a whole audience at once.
 */
function parseScheduledFor(value: unknown): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const when = typeof value === 'string' || typeof value === 'number' ? new Date(value) : new Date(Number.NaN)
  if (Number.isNaN(when.getTime())) throw scheduledForError('Invalid scheduledFor date format', 'invalid_date')
  if (when.getTime() < Date.now() - scheduledForSkewMs) {
    throw scheduledForError(
      `scheduledFor ${when.toISOString()} is in the past: give a time in the future, or none to send now`,
      'too_small',
    )
  }
  return when
}

/**
 * Sends a DRAFT or SCHEDULED campaign now, or schedules it. The row lock makes two concurrent sends take turns:
 * the second finds the campaign SENDING (or SCHEDULED again, which reschedules) and never starts a second
 * fan-out. Sending only flips the state; the fan-out loop of a worker queues the audience right after.
 * A time up to a minute in the past (clock skew) sends now; an older one is refused by parseScheduledFor.
 * The pre-send check runs on the locked row: its errors refuse the send (422) unless an owner forces it, and the
 * override is kept on the campaign.
 */
export async function sendCampaign(
  ctx: AppContext,
  projectId: string,
  id: string,
  scheduledFor: unknown,
  request: SendRequest,
): Promise<{ campaign: CampaignRecord; message: string }> {
  assertMayForce(request)
  const when = parseScheduledFor(scheduledFor)
  const sent = await ctx.db.transaction(async (tx) => {
    const campaign = await lockCampaign(tx, projectId, id)
    if (!sendableStates.has(campaign.status)) {
      throw new AppError('BAD_REQUEST', `Campaign is ${campaign.status}: only DRAFT or SCHEDULED campaigns can be sent`)
    }
    // The sender domain may have been removed or lost its verification since the campaign was written.
    await assertSenderAllowed(tx, ctx.config, projectId, campaign.from)
    const presendOverride = await gateCampaignSend(tx, ctx.config, projectId, campaign, request)
    const recipients = await countAudience(tx, projectId, campaign)
    if (recipients === 0) throw new AppError('BAD_REQUEST', 'Campaign has no recipients')
    if (when && when.getTime() > Date.now()) {
      // Counted when it starts; refused now already if its audience would not fit what is left of the cap.
      await assertWithinLimit(tx, projectId, 'campaigns', recipients)
      const [scheduled] = await tx
        .update(campaigns)
        .set({ status: 'SCHEDULED', scheduledFor: when, totalRecipients: recipients, presendOverride })
        .where(eq(campaigns.id, id))
        .returning()
      return { campaign: scheduled ?? campaign, message: `Campaign scheduled for ${when.toISOString()}` }
    }
    // The whole audience is counted at the start, so a campaign that would pass the cap never starts.
    await chargeUsage(tx, projectId, 'campaigns', recipients)
    const [sending] = await tx
      .update(campaigns)
      .set({ ...startSending, scheduledFor: null, presendOverride })
      .where(eq(campaigns.id, id))
      .returning()
    return { campaign: sending ?? campaign, message: 'Campaign is being sent' }
  })
  // Committed: the fan-out starts now rather than at the campaigns loop's next poll.
  if (sent.campaign.status === 'SENDING') wakeCampaignsLoop(ctx.pool)
  return sent
}

/** A campaign entering SENDING: fresh counters, the audience frozen at `sent_at`, nothing queued yet. */
const startSending = {
  status: 'SENDING',
  sentAt: sql`now()`,
  queuedAt: null,
  fanOutCreatedAt: null,
  fanOutContactId: null,
  totalRecipients: 0,
  sentCount: 0,
  deliveredCount: 0,
  openedCount: 0,
  clickedCount: 0,
  bouncedCount: 0,
  complainedCount: 0,
  unsubscribedCount: 0,
  failedCount: 0,
} as const

/** Scheduled campaigns whose time has come (the campaigns loop looks for them before opening a transaction). */
export const dueToStart = sql`status = 'SCHEDULED' AND scheduled_for <= now()`

/**
 * Starts the scheduled campaigns whose time has come. SKIP LOCKED and the state change in one transaction make
 * each start happen once, however many workers run this; the fan-out follows in the same loop. Each start counts
 * the audience counted at scheduling against the monthly campaigns cap; one that no longer fits goes back to
 * DRAFT (it was never sent) with a `billing.campaign_blocked` event, instead of starting and stopping half-way.
 */
export async function startDueCampaigns(ctx: AppContext): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const due = await tx.execute<{ id: string; project_id: string; total_recipients: number }>(sql`
      SELECT id, project_id, total_recipients FROM campaigns WHERE ${dueToStart}
      ORDER BY scheduled_for LIMIT 100 FOR UPDATE SKIP LOCKED`)
    if (due.rows.length === 0) return 0
    const started: string[] = []
    const blocked: { id: string; projectId: string }[] = []
    // One statement per campaign: two due campaigns of one project must each see the other's count.
    for (const campaign of due.rows) {
      const refused = await addUsage(tx, 'campaigns', new Map([[campaign.project_id, campaign.total_recipients]]))
      if (refused.size === 0) started.push(campaign.id)
      else blocked.push({ id: campaign.id, projectId: campaign.project_id })
    }
    if (started.length > 0) {
      await tx.update(campaigns).set(startSending).where(inArray(campaigns.id, started))
    }
    if (blocked.length > 0) {
      await tx
        .update(campaigns)
        .set({ status: 'DRAFT', scheduledFor: null })
        .where(
          inArray(
            campaigns.id,
            blocked.map((campaign) => campaign.id),
          ),
        )
      await publishEvents(
        tx,
        blocked.map((campaign) => ({
          projectId: campaign.projectId,
          contactId: null,
          name: campaignBlockedEvent,
          data: { campaignId: campaign.id, category: 'campaigns', reason: 'monthly limit reached' },
        })),
      )
    }
    return started.length
  })
}
