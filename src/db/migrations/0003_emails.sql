CREATE TYPE "public"."email_source_type" AS ENUM('TRANSACTIONAL', 'CAMPAIGN', 'WORKFLOW');--> statement-breakpoint
CREATE TYPE "public"."email_status" AS ENUM('QUEUED', 'SENDING', 'SENT', 'FAILED', 'DELIVERED', 'BOUNCED', 'COMPLAINED', 'OPENED', 'CLICKED');--> statement-breakpoint
CREATE TABLE "captured_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"email_id" uuid,
	"from_email" text NOT NULL,
	"to_emails" text[] NOT NULL,
	"subject" text NOT NULL,
	"raw" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_attachments" (
	"email_id" uuid NOT NULL,
	"position" smallint NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"content" "bytea" NOT NULL,
	"content_id" text,
	"disposition" text DEFAULT 'attachment' NOT NULL,
	CONSTRAINT "email_attachments_email_id_position_pk" PRIMARY KEY("email_id","position")
);
--> statement-breakpoint
CREATE TABLE "emails" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"contact_id" uuid,
	"template_id" uuid,
	"campaign_id" uuid,
	"source_type" "email_source_type" DEFAULT 'TRANSACTIONAL' NOT NULL,
	"priority" smallint DEFAULT 0 NOT NULL,
	"from_email" text NOT NULL,
	"from_name" text,
	"reply_to" text,
	"to_email" text NOT NULL,
	"to_name" text,
	"subject" text NOT NULL,
	"html" text NOT NULL,
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" "email_status" DEFAULT 'QUEUED' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"last_error" text,
	"message_id" text NOT NULL,
	"provider_message_id" text,
	"sent_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "captured_messages" ADD CONSTRAINT "captured_messages_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_attachments" ADD CONSTRAINT "email_attachments_email_id_emails_id_fk" FOREIGN KEY ("email_id") REFERENCES "public"."emails"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "captured_messages_project_id_created_at_index" ON "captured_messages" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "emails_claim_index" ON "emails" USING btree ("priority","next_attempt_at") WHERE "emails"."status" = 'QUEUED';--> statement-breakpoint
CREATE INDEX "emails_lease_index" ON "emails" USING btree ("lease_expires_at") WHERE "emails"."status" = 'SENDING';--> statement-breakpoint
CREATE INDEX "emails_project_id_created_at_index" ON "emails" USING btree ("project_id","created_at");