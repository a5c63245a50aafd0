CREATE TABLE "event_bus_positions" (
	"consumer" text PRIMARY KEY NOT NULL,
	"tx_id" "xid8" NOT NULL,
	"event_id" uuid NOT NULL
);
--> statement-breakpoint
DROP INDEX "events_undispatched_idx";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "tx_id" "xid8";--> statement-breakpoint
-- Events already dispatched belong to transaction 0, at or before the consumer's first position; the rest
-- are this migration's and are handed out once it commits.
UPDATE "events" SET "tx_id" = CASE WHEN "dispatched_at" IS NULL THEN pg_current_xact_id() ELSE '0'::xid8 END;--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "tx_id" SET DEFAULT pg_current_xact_id();--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "tx_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "dispatched_at";--> statement-breakpoint
CREATE INDEX "events_tx_id_id_index" ON "events" USING btree ("tx_id","id");--> statement-breakpoint
INSERT INTO "event_bus_positions" ("consumer", "tx_id", "event_id")
VALUES ('subscribers', '0', 'ffffffff-ffff-ffff-ffff-ffffffffffff');
