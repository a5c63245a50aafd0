CREATE TABLE "pending_provider_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" text NOT NULL,
	"provider_message_id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "machine_opens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "machine_clicks" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "last_clicked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "last_clicked_link" text;--> statement-breakpoint
CREATE INDEX "pending_provider_reports_provider_message_id_index" ON "pending_provider_reports" USING btree ("provider_message_id");--> statement-breakpoint
CREATE INDEX "pending_provider_reports_received_at_index" ON "pending_provider_reports" USING btree ("received_at");