ALTER TABLE "domains" ADD COLUMN "audit" jsonb;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "return_path_domain" text;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "return_path_verified_at" timestamp with time zone;