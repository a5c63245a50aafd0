ALTER TYPE "public"."account_email_kind" ADD VALUE 'WEBHOOK_DISABLED';--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"message_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"succeeded" boolean NOT NULL,
	"response_status" integer,
	"response_body" text DEFAULT '' NOT NULL,
	"error" text,
	"latency_ms" integer NOT NULL,
	"url" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"url" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"event_types" text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"disabled_reason" text,
	"secret" text NOT NULL,
	"previous_secret" text,
	"previous_secret_expires_at" timestamp with time zone,
	"failing_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"event_id" uuid,
	"event_type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	CONSTRAINT "webhook_messages_status_check" CHECK ("webhook_messages"."status" IN ('PENDING', 'DELIVERED', 'FAILED'))
);
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_message_id_webhook_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."webhook_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_messages" ADD CONSTRAINT "webhook_messages_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_attempts_message_index" ON "webhook_attempts" USING btree ("message_id","id");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_project_index" ON "webhook_endpoints" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_messages_endpoint_index" ON "webhook_messages" USING btree ("endpoint_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_messages_due_index" ON "webhook_messages" USING btree ("endpoint_id","next_attempt_at") WHERE "webhook_messages"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "webhook_messages_leased_index" ON "webhook_messages" USING btree ("endpoint_id") WHERE "webhook_messages"."status" = 'PENDING' AND "webhook_messages"."leased_until" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_messages_pending_index" ON "webhook_messages" USING btree ("next_attempt_at") WHERE "webhook_messages"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "webhook_messages_retention_index" ON "webhook_messages" USING btree ("created_at");