CREATE TABLE "project_suspensions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"message" text NOT NULL,
	"sent" integer NOT NULL,
	"bounces" integer NOT NULL,
	"complaints" integer NOT NULL,
	"bounce_rate" double precision NOT NULL,
	"complaint_rate" double precision NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lifted_at" timestamp with time zone,
	"lifted_by" uuid,
	"baseline_sent" integer DEFAULT 0 NOT NULL,
	"baseline_bounces" integer DEFAULT 0 NOT NULL,
	"baseline_complaints" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reputation_counts" (
	"project_id" uuid NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"bounces" integer DEFAULT 0 NOT NULL,
	"complaints" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "reputation_counts_project_id_hour_pk" PRIMARY KEY("project_id","hour")
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "sending_paused_reason" text;--> statement-breakpoint
ALTER TABLE "project_suspensions" ADD CONSTRAINT "project_suspensions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_suspensions" ADD CONSTRAINT "project_suspensions_lifted_by_users_id_fk" FOREIGN KEY ("lifted_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reputation_counts" ADD CONSTRAINT "reputation_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "project_suspensions_project_id_created_at_index" ON "project_suspensions" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "project_suspensions_open_idx" ON "project_suspensions" USING btree ("project_id") WHERE "project_suspensions"."lifted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "emails_queued_project_index" ON "emails" USING btree ("project_id") WHERE "emails"."status" = 'QUEUED';