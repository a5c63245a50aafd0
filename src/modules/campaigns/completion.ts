/**
 * When a campaign is SENT. A SENDING campaign becomes SENT as soon as its whole audience is queued (`queued_at`, set
 * by the fan-out chunk that finds the audience exhausted) and every queued email was sent or failed
 * (`sent_count + failed_count >= total_recipients`); never before, so a campaign is never SENT while any of its
 * emails is still queued.
 *
 * The rule lives in PostgreSQL, as the row trigger `campaigns_sent_when_done` on `campaigns`
 * (src/db/migrations/0023_campaign_sent_rule.sql), and nowhere else. Every change that can complete a campaign is an
 * update of its row: the counters that `campaign_email_counters` (migration 0013) moves whenever an email is recorded
 * sent or failed, whoever records it (the outbox's recorder, a claim that fails a suppressed address, feedback), and
 * `fanOutChunk` setting `queued_at` (`fan-out.ts`). A BEFORE UPDATE row trigger sees the row as that update leaves
 * it, under its row lock: two workers recording the last emails at once queue on the lock, the second sees the
 * first's counts, and the campaign turns SENT exactly once. A statement in TypeScript would have to follow each of
 * those writers, most of them in modules below this one, and one forgotten would leave a campaign SENDING forever.
 */
export const campaignSentTrigger = 'campaigns_sent_when_done'
