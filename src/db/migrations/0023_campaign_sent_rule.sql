-- The campaign SENDING -> SENT rule in one place (src/modules/campaigns/completion.ts says why here): a row trigger
-- on campaigns, so it holds for every update that can complete a campaign, the counters moved by
-- campaign_email_counters as emails are recorded and the fan-out's last chunk alike. Until now each wrote it itself.
CREATE OR REPLACE FUNCTION campaign_email_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE campaigns AS c
  SET sent_count = c.sent_count + ch.sent,
      delivered_count = c.delivered_count + ch.delivered,
      opened_count = c.opened_count + ch.opened,
      clicked_count = c.clicked_count + ch.clicked,
      bounced_count = c.bounced_count + ch.bounced,
      complained_count = c.complained_count + ch.complained,
      failed_count = c.failed_count + ch.failed
  FROM (
    SELECT n.campaign_id,
      count(*) FILTER (WHERE n.sent_at IS NOT NULL AND o.sent_at IS NULL) AS sent,
      count(*) FILTER (WHERE n.delivered_at IS NOT NULL AND o.delivered_at IS NULL) AS delivered,
      count(*) FILTER (WHERE n.opened_at IS NOT NULL AND o.opened_at IS NULL) AS opened,
      count(*) FILTER (WHERE n.clicked_at IS NOT NULL AND o.clicked_at IS NULL) AS clicked,
      count(*) FILTER (WHERE n.bounced_at IS NOT NULL AND o.bounced_at IS NULL) AS bounced,
      count(*) FILTER (WHERE n.complained_at IS NOT NULL AND o.complained_at IS NULL) AS complained,
      count(*) FILTER (WHERE n.status = 'FAILED' AND o.status <> 'FAILED' AND o.sent_at IS NULL) AS failed
    FROM new_emails AS n JOIN old_emails AS o ON o.id = n.id
    WHERE n.campaign_id IS NOT NULL
    GROUP BY n.campaign_id
  ) AS ch
  WHERE c.id = ch.campaign_id
    AND ch.sent + ch.delivered + ch.opened + ch.clicked + ch.bounced + ch.complained + ch.failed > 0;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION mark_campaign_sent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.status := 'SENT';
  RETURN NEW;
END
$$;
--> statement-breakpoint
-- BEFORE and per row: the condition reads the row as this update leaves it, under its row lock, so concurrent
-- recorders queue on the lock and the one that records the last email sees every other's counts.
CREATE TRIGGER campaigns_sent_when_done BEFORE UPDATE ON campaigns
  FOR EACH ROW
  WHEN (NEW.status = 'SENDING' AND NEW.queued_at IS NOT NULL
    AND NEW.sent_count + NEW.failed_count >= NEW.total_recipients)
  EXECUTE FUNCTION mark_campaign_sent();
