ALTER TABLE "captured_messages" ADD COLUMN "campaign_id" uuid;--> statement-breakpoint
CREATE INDEX "captured_messages_project_id_campaign_id_index" ON "captured_messages" USING btree ("project_id","campaign_id") WHERE "captured_messages"."campaign_id" IS NOT NULL;--> statement-breakpoint
-- Captures made before the column: their campaign from their email, so old campaigns count them too.
UPDATE "captured_messages" AS cm SET "campaign_id" = e."campaign_id"
FROM "emails" AS e
WHERE e."id" = cm."email_id" AND e."campaign_id" IS NOT NULL;
