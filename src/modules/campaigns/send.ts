import { and, eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { campaigns } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { assertSenderAllowed } from '../domains/service.js'
import { countAudience } from './audience.js'

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

/** Any string `new Date()` reads is a time (the spec); omitted, null or empty means now. */
export function parseScheduledFor(value: unknown): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const when = typeof value === 'string' || typeof value === 'number' ? new Date(value) : new Date(Number.NaN)
  if (Number.isNaN(when.getTime())) throw new AppError('BAD_REQUEST', 'Invalid scheduledFor date format')
  return when
}

/**
 * Sends a DRAFT or SCHEDULED campaign now, or schedules it. The row lock makes two concurrent sends take turns:
 * the second finds the campaign SENDING (or SCHEDULED again, which reschedules) and never starts a second
 * fan-out. Sending only flips the state; the fan-out loop of a worker queues the audience right after.
 * A time in the past sends now.
 */
export async function sendCampaign(
  ctx: AppContext,
  projectId: string,
  id: string,
  scheduledFor: unknown,
): Promise<{ campaign: CampaignRecord; message: string }> {
  const when = parseScheduledFor(scheduledFor)
  return ctx.db.transaction(async (tx) => {
    const campaign = await lockCampaign(tx, projectId, id)
    if (!sendableStates.has(campaign.status)) {
      throw new AppError('BAD_REQUEST', `Campaign is ${campaign.status}: only DRAFT or SCHEDULED campaigns can be sent`)
    }
    // The sender domain may have been removed or lost its verification since the campaign was written.
    await assertSenderAllowed(tx, ctx.config, projectId, campaign.from)
    const recipients = await countAudience(tx, projectId, campaign)
    if (recipients === 0) throw new AppError('BAD_REQUEST', 'Campaign has no recipients')
    if (when && when.getTime() > Date.now()) {
      const [scheduled] = await tx
        .update(campaigns)
        .set({ status: 'SCHEDULED', scheduledFor: when, totalRecipients: recipients })
        .where(eq(campaigns.id, id))
        .returning()
      return { campaign: scheduled ?? campaign, message: `Campaign scheduled for ${when.toISOString()}` }
    }
    const [sending] = await tx
      .update(campaigns)
      .set({ ...startSending, scheduledFor: null })
      .where(eq(campaigns.id, id))
      .returning()
    return { campaign: sending ?? campaign, message: 'Campaign is being sent' }
  })
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

/**
 * Starts the scheduled campaigns whose time has come. SKIP LOCKED and the state change in one statement make
 * each start happen once, however many workers run this; the fan-out follows in the same loop.
 */
export async function startDueCampaigns(ctx: AppContext): Promise<number> {
  const started = await ctx.db
    .update(campaigns)
    .set(startSending)
    .where(
      sql`${campaigns.id} IN (
        SELECT id FROM campaigns WHERE status = 'SCHEDULED' AND scheduled_for <= now()
        ORDER BY scheduled_for LIMIT 100 FOR UPDATE SKIP LOCKED)`,
    )
    .returning({ id: campaigns.id })
  return started.length
}
