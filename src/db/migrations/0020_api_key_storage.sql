ALTER TABLE "projects" DROP CONSTRAINT "projects_publicKey_unique";--> statement-breakpoint
ALTER TABLE "projects" DROP CONSTRAINT "projects_secretKey_unique";--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "public_key" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "secret_key" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "public_key_hash" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "secret_key_hash" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "public_key_sealed" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "secret_key_sealed" text;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_publicKeyHash_unique" UNIQUE("public_key_hash");--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_secretKeyHash_unique" UNIQUE("secret_key_hash");