ALTER TABLE "billing_usage" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "billing_usage" DROP CONSTRAINT "billing_usage_project_id_period_category_pk";--> statement-breakpoint
ALTER TABLE "billing_usage" ADD CONSTRAINT "billing_usage_project_id_period_category_shard_pk" PRIMARY KEY("project_id","period","category","shard");
