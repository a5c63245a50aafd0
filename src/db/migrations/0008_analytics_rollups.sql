CREATE TABLE "campaign_event_counts" (
	"project_id" uuid NOT NULL,
	"campaign_id" uuid NOT NULL,
	"name" text NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL,
	"unique_count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "campaign_event_counts_project_id_campaign_id_name_pk" PRIMARY KEY("project_id","campaign_id","name")
);
--> statement-breakpoint
CREATE TABLE "event_counts_hourly" (
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL,
	"unique_count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "event_counts_hourly_project_id_name_hour_pk" PRIMARY KEY("project_id","name","hour")
);
--> statement-breakpoint
ALTER TABLE "campaign_event_counts" ADD CONSTRAINT "campaign_event_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_counts_hourly" ADD CONSTRAINT "event_counts_hourly_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_counts_hourly_project_id_hour_index" ON "event_counts_hourly" USING btree ("project_id","hour");--> statement-breakpoint
-- Backfill: count every event dispatched before the rollups existed (src/modules/analytics/rollup-sql.ts counts
-- by the same rules; undispatched events are counted by the subscriber when the dispatcher hands them out).
INSERT INTO "event_counts_hourly" AS c ("project_id", "name", "hour", "count", "unique_count")
SELECT e.project_id, e.name, date_trunc('hour', e.created_at, 'UTC'), count(*), count(*) FILTER (WHERE CASE e.name
  WHEN 'email.open' THEN e.data->'isFirstOpen' IS DISTINCT FROM 'false'::jsonb
  WHEN 'email.click' THEN e.data->'isFirstClick' IS DISTINCT FROM 'false'::jsonb
  ELSE true END)
FROM "events" e WHERE e.dispatched_at IS NOT NULL
GROUP BY 1, 2, 3;--> statement-breakpoint
INSERT INTO "campaign_event_counts" AS c ("project_id", "campaign_id", "name", "count", "unique_count")
SELECT e.project_id, (e.data->>'campaignId')::uuid, e.name, count(*), count(*) FILTER (WHERE CASE e.name
  WHEN 'email.open' THEN e.data->'isFirstOpen' IS DISTINCT FROM 'false'::jsonb
  WHEN 'email.click' THEN e.data->'isFirstClick' IS DISTINCT FROM 'false'::jsonb
  ELSE true END)
FROM "events" e
WHERE e.dispatched_at IS NOT NULL AND e.name LIKE 'email.%'
  AND e.data->>'campaignId' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
GROUP BY 1, 2, 3;
