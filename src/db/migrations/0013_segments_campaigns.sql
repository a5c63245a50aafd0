CREATE TYPE "public"."audience_type" AS ENUM('ALL', 'SEGMENT', 'FILTERED');--> statement-breakpoint
CREATE TYPE "public"."campaign_status" AS ENUM('DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED');--> statement-breakpoint
CREATE TYPE "public"."segment_type" AS ENUM('DYNAMIC', 'STATIC');--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"from" text NOT NULL,
	"from_name" text,
	"reply_to" text,
	"type" "template_type" DEFAULT 'MARKETING' NOT NULL,
	"status" "campaign_status" DEFAULT 'DRAFT' NOT NULL,
	"audience_type" "audience_type" NOT NULL,
	"audience_condition" jsonb,
	"segment_id" uuid,
	"scheduled_for" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"queued_at" timestamp with time zone,
	"fan_out_created_at" timestamp with time zone,
	"fan_out_contact_id" uuid,
	"total_recipients" integer DEFAULT 0 NOT NULL,
	"sent_count" integer DEFAULT 0 NOT NULL,
	"delivered_count" integer DEFAULT 0 NOT NULL,
	"opened_count" integer DEFAULT 0 NOT NULL,
	"clicked_count" integer DEFAULT 0 NOT NULL,
	"bounced_count" integer DEFAULT 0 NOT NULL,
	"complained_count" integer DEFAULT 0 NOT NULL,
	"unsubscribed_count" integer DEFAULT 0 NOT NULL,
	"failed_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "segment_memberships" (
	"segment_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"entered_at" timestamp with time zone DEFAULT now() NOT NULL,
	"exited_at" timestamp with time zone,
	CONSTRAINT "segment_memberships_segment_id_contact_id_pk" PRIMARY KEY("segment_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "segments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"type" "segment_type" DEFAULT 'DYNAMIC' NOT NULL,
	"condition" jsonb,
	"track_membership" boolean DEFAULT false NOT NULL,
	"member_count" integer DEFAULT 0 NOT NULL,
	"member_count_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "campaign_slot_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_memberships" ADD CONSTRAINT "segment_memberships_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_memberships" ADD CONSTRAINT "segment_memberships_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaigns_project_id_created_at_index" ON "campaigns" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "campaigns_due_index" ON "campaigns" USING btree ("scheduled_for") WHERE "campaigns"."status" = 'SCHEDULED';--> statement-breakpoint
CREATE INDEX "campaigns_fan_out_index" ON "campaigns" USING btree ("sent_at") WHERE "campaigns"."status" = 'SENDING' AND "campaigns"."queued_at" IS NULL;--> statement-breakpoint
CREATE INDEX "campaigns_segment_index" ON "campaigns" USING btree ("segment_id") WHERE "campaigns"."segment_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "segment_memberships_contact_id_index" ON "segment_memberships" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "segment_memberships_active_index" ON "segment_memberships" USING btree ("segment_id","entered_at") WHERE "segment_memberships"."exited_at" IS NULL;--> statement-breakpoint
CREATE INDEX "segments_project_id_created_at_index" ON "segments" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "emails_contact_index" ON "emails" USING btree ("contact_id") WHERE "emails"."contact_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "emails_campaign_index" ON "emails" USING btree ("campaign_id","status") WHERE "emails"."campaign_id" IS NOT NULL;--> statement-breakpoint
-- Campaign counters follow their emails: one aggregate per UPDATE statement on emails (the outbox records outcomes
-- and feedback in batches), never one write per email. A SENDING campaign whose fan-out is done becomes SENT in the
-- statement that settles (sends or fails) its last email.
CREATE FUNCTION campaign_email_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE campaigns AS c
  SET sent_count = c.sent_count + ch.sent,
      delivered_count = c.delivered_count + ch.delivered,
      opened_count = c.opened_count + ch.opened,
      clicked_count = c.clicked_count + ch.clicked,
      bounced_count = c.bounced_count + ch.bounced,
      complained_count = c.complained_count + ch.complained,
      failed_count = c.failed_count + ch.failed,
      status = CASE
        WHEN c.status = 'SENDING' AND c.queued_at IS NOT NULL
          AND c.sent_count + ch.sent + c.failed_count + ch.failed >= c.total_recipients THEN 'SENT'
        ELSE c.status END
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
CREATE TRIGGER emails_campaign_counters AFTER UPDATE ON emails
  REFERENCING OLD TABLE AS old_emails NEW TABLE AS new_emails
  FOR EACH STATEMENT EXECUTE FUNCTION campaign_email_counters();
