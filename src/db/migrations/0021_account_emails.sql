CREATE TYPE "public"."account_email_kind" AS ENUM('VERIFY_EMAIL', 'RESET_PASSWORD', 'INVITATION');--> statement-breakpoint
CREATE TABLE "account_emails" (
	"email_id" uuid PRIMARY KEY NOT NULL,
	"kind" "account_email_kind" NOT NULL,
	"user_id" uuid,
	"project_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "account_emails" ADD CONSTRAINT "account_emails_email_id_emails_id_fk" FOREIGN KEY ("email_id") REFERENCES "public"."emails"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_emails" ADD CONSTRAINT "account_emails_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_emails" ADD CONSTRAINT "account_emails_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_emails_user_id_index" ON "account_emails" USING btree ("user_id") WHERE "account_emails"."user_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "account_emails_project_id_index" ON "account_emails" USING btree ("project_id") WHERE "account_emails"."project_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "captured_messages_email_id_index" ON "captured_messages" USING btree ("email_id") WHERE "captured_messages"."email_id" IS NOT NULL;