CREATE TYPE "public"."billing_category" AS ENUM('transactional', 'campaigns', 'workflows', 'inbound');--> statement-breakpoint
CREATE TABLE "billing_usage" (
	"project_id" uuid NOT NULL,
	"period" date NOT NULL,
	"category" "billing_category" NOT NULL,
	"used" bigint DEFAULT 0 NOT NULL,
	"warned_at" timestamp with time zone,
	CONSTRAINT "billing_usage_project_id_period_category_pk" PRIMARY KEY("project_id","period","category")
);
--> statement-breakpoint
CREATE TABLE "billing_webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"project_id" uuid,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_billing" (
	"project_id" uuid PRIMARY KEY NOT NULL,
	"transactional_limit" integer,
	"campaigns_limit" integer,
	"workflows_limit" integer,
	"inbound_limit" integer,
	"stripe_customer_id" text,
	"stripe_subscription_id" text,
	"subscription_status" text,
	"payment_paused_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_billing_stripeCustomerId_unique" UNIQUE("stripe_customer_id"),
	CONSTRAINT "project_billing_stripeSubscriptionId_unique" UNIQUE("stripe_subscription_id")
);
--> statement-breakpoint
ALTER TABLE "billing_usage" ADD CONSTRAINT "billing_usage_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_webhook_events" ADD CONSTRAINT "billing_webhook_events_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_billing" ADD CONSTRAINT "project_billing_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;