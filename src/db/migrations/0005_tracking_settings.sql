CREATE TYPE "public"."tracking_mode" AS ENUM('ENABLED', 'DISABLED', 'MARKETING_ONLY');--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "tracked" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "tracking" "tracking_mode" DEFAULT 'MARKETING_ONLY' NOT NULL;