CREATE TABLE "email_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "email_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"email_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
DROP INDEX "emails_campaign_index";--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "workflow_id" uuid;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "workflow_execution_id" uuid;--> statement-breakpoint
ALTER TABLE "email_history" ADD CONSTRAINT "email_history_email_id_emails_id_fk" FOREIGN KEY ("email_id") REFERENCES "public"."emails"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_history_email_index" ON "email_history" USING btree ("email_id","at");--> statement-breakpoint
CREATE INDEX "email_history_unsubscribe_index" ON "email_history" USING btree ("project_id") WHERE "email_history"."kind" = 'unsubscribed';--> statement-breakpoint
CREATE INDEX "emails_workflow_index" ON "emails" USING btree ("workflow_id","created_at") WHERE "emails"."workflow_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "emails_campaign_index" ON "emails" USING btree ("campaign_id","status","id") WHERE "emails"."campaign_id" IS NOT NULL;