DROP INDEX "project_suspensions_open_idx";--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "marketing_stream" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "marketing_paused_reason" text;--> statement-breakpoint
ALTER TABLE "project_suspensions" ADD COLUMN "scope" text DEFAULT 'PROJECT' NOT NULL;--> statement-breakpoint
ALTER TABLE "project_suspensions" ADD COLUMN "baseline_marketing_sent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "project_suspensions" ADD COLUMN "baseline_marketing_bounces" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "project_suspensions" ADD COLUMN "baseline_marketing_complaints" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "reputation_counts" ADD COLUMN "marketing_sent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "reputation_counts" ADD COLUMN "marketing_bounces" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "reputation_counts" ADD COLUMN "marketing_complaints" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "project_suspensions_open_idx" ON "project_suspensions" USING btree ("project_id","scope") WHERE "project_suspensions"."lifted_at" IS NULL;--> statement-breakpoint
-- Mail queued before the streams existed joins the marketing stream as it would be queued now (campaigns and
-- MARKETING-template mail), so a marketing pause holds it too. Only queued rows: sent ones are history.
UPDATE "emails" AS e SET "marketing_stream" = true
WHERE e."status" = 'QUEUED' AND (e."source_type" = 'CAMPAIGN'
  OR EXISTS (SELECT 1 FROM "templates" AS t WHERE t."id" = e."template_id" AND t."type" = 'MARKETING'));
