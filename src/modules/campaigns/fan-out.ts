import { and, eq, isNull, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import { campaigns } from '../../db/schema/index.js'
import { timeOrderedUuid } from '../../db/time-ordered-uuid.js'
import { domainOf } from '../../mail/address.js'
import { wakeOutbox } from '../delivery/service.js'
import { bulkPriority, heldPriorityOffset, sendingHeld } from '../delivery/sql.js'
import { audienceSql } from './audience.js'

/** Recipients queued per transaction: large enough for set-based speed, small enough for short locks. */
const fanOutChunkSize = 10_000
/** The first chunk is smaller, so the outbox starts sending ~40 ms after the send instead of ~400. */
const firstFanOutChunkSize = 1_000

type ProjectSending = { slot: Date; tracking: string; held: boolean }

/**
 * Queues the next chunk of a sending campaign's audience, in one transaction: one `INSERT … SELECT` puts an email
 * row in the outbox for each next contact of the audience, in (created_at, id) order after the stored cursor,
 * and moves the cursor and the recipient count with it, so a crash resumes after the last committed chunk and
 * no contact is queued twice. The audience is frozen at the send: contacts created after it are not in it.
 * The emails are stored without content (the outbox renders each for its contact when it sends it) and with
 * send times spaced at the project's campaign rate, from the project's next free slot. The chunk that finds
 * the audience exhausted marks the campaign queued; if every email already went out, that makes it SENT
 * (`completion.ts`).
 *
 * Returns true when more of the audience may remain; false when the campaign is fully queued, is not sending,
 * or another worker holds it.
 *
 * The campaign and project rows are locked FOR NO KEY UPDATE, which a chunk's changes need: a FOR UPDATE lock
 * would also stop every insert that references them (each takes a key share), so the project's `/v1/send` waited
 * for the whole chunk, up to half a second at a time for as long as a large audience took to queue.
 */
export async function fanOutChunk(ctx: AppContext, campaignId: string): Promise<boolean> {
  const queued = await ctx.db.transaction(async (tx) => {
    const [campaign] = await tx
      .select()
      .from(campaigns)
      .where(and(eq(campaigns.id, campaignId), eq(campaigns.status, 'SENDING'), isNull(campaigns.queuedAt)))
      .for('no key update', { skipLocked: true })
    if (!campaign) return undefined
    const project = await tx.execute<ProjectSending>(sql`
      SELECT greatest(coalesce(campaign_slot_at, now()), now()) AS slot, tracking,
        ${sendingHeld(sql`projects`, sql`true`)} AS held
      FROM projects WHERE id = ${campaign.projectId} FOR NO KEY UPDATE`)
    const sending = project.rows[0]
    if (!sending) return undefined
    // "Within" and "older than" are measured from the send, for every chunk alike.
    const audience = await audienceSql(tx, campaign.projectId, campaign, sql`c`, campaign.sentAt ?? new Date())
    // The cursor is compared in SQL, never through a JS Date, which would drop its microseconds.
    const after = campaign.fanOutContactId
      ? sql`AND (c.created_at, c.id) > (SELECT fan_out_created_at, fan_out_contact_id FROM campaigns WHERE id = ${campaign.id})`
      : sql``
    const spacing = 1 / ctx.config.campaignRatePerSecond
    const chunkSize = campaign.fanOutContactId ? fanOutChunkSize : firstFanOutChunkSize
    const marketing = campaign.type !== 'TRANSACTIONAL'
    const tracked = sending.tracking === 'ENABLED' || (sending.tracking === 'MARKETING_ONLY' && marketing)
    // Every campaign is the reputation guard's marketing stream, whatever its content type: it is list mail, where
    // bounces come from, and a type must not let it slip past a marketing pause.
    const priority = bulkPriority + (sending.held ? heldPriorityOffset : 0)
    const result = await tx.execute<{ queued: number }>(sql`
      WITH batch AS MATERIALIZED (
        SELECT ${timeOrderedUuid} AS email_id, c.id, c.email, c.created_at,
          row_number() OVER (ORDER BY c.created_at, c.id) AS position
        FROM contacts AS c
        WHERE c.project_id = ${campaign.projectId}
          AND c.created_at <= (SELECT sent_at FROM campaigns WHERE id = ${campaign.id})
          ${after}
          AND ${audience}
        ORDER BY c.created_at, c.id
        LIMIT ${chunkSize}
      ), inserted AS (
        INSERT INTO emails (id, project_id, contact_id, campaign_id, source_type, priority, from_email, from_name,
          reply_to, to_email, subject, html, message_id, tracked, marketing_stream, next_attempt_at)
        SELECT b.email_id, ${campaign.projectId}, b.id, ${campaign.id}, 'CAMPAIGN', ${priority}, ${campaign.from},
          ${campaign.fromName}, ${campaign.replyTo}, b.email, ${campaign.subject}, '',
          b.email_id::text || ${`@${domainOf(campaign.from)}`}, ${tracked}, true,
          ${sending.slot}::timestamptz + make_interval(secs => (b.position - 1) * ${spacing}::float8)
        FROM batch AS b
        RETURNING 1
      ), last AS (
        SELECT created_at, id FROM batch ORDER BY position DESC LIMIT 1
      ), counted AS (
        SELECT count(*)::int AS queued FROM inserted
      ), moved AS (
        UPDATE campaigns AS m
        SET total_recipients = m.total_recipients + counted.queued,
            fan_out_created_at = coalesce((SELECT created_at FROM last), m.fan_out_created_at),
            fan_out_contact_id = coalesce((SELECT id FROM last), m.fan_out_contact_id),
            queued_at = CASE WHEN counted.queued < ${chunkSize} THEN now() END
        FROM counted
        WHERE m.id = ${campaign.id}
      )
      SELECT queued FROM counted`)
    const count = result.rows[0]?.queued ?? 0
    await tx.execute(sql`
      UPDATE projects SET campaign_slot_at = ${sending.slot}::timestamptz + make_interval(secs => ${count * spacing}::float8)
      WHERE id = ${campaign.projectId}`)
    return { count, full: count === chunkSize }
  })
  if (queued === undefined) return false
  if (queued.count > 0) {
    ctx.metrics.emails.accepted(queued.count)
    wakeOutbox(ctx.pool, 'bulk')
  }
  return queued.full
}
