CREATE TABLE "submitted_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"mail_from" text NOT NULL,
	"raw" "bytea" NOT NULL,
	"idempotency_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "submitted_message_id" uuid;--> statement-breakpoint
ALTER TABLE "submitted_messages" ADD CONSTRAINT "submitted_messages_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "submitted_messages_project_id_created_at_index" ON "submitted_messages" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "submitted_messages_project_id_idempotency_key_index" ON "submitted_messages" USING btree ("project_id","idempotency_key") WHERE "submitted_messages"."idempotency_key" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_submitted_message_id_submitted_messages_id_fk" FOREIGN KEY ("submitted_message_id") REFERENCES "public"."submitted_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "emails_submitted_message_index" ON "emails" USING btree ("submitted_message_id") WHERE "emails"."submitted_message_id" IS NOT NULL;