-- A submitted message is stored as it came, uncompressed (src/modules/relay/store.ts). PostgreSQL would try pglz
-- on every one: mail carrying attachments is base64 of already compressed files, which pglz cannot shrink, so it
-- stored them uncompressed anyway after spending ~10 % of the relay's database CPU per message on the attempt.
-- EXTERNAL keeps them out of line, as before, without the attempt. Rows written before keep their form.
ALTER TABLE "submitted_messages" ALTER COLUMN "raw" SET STORAGE EXTERNAL;
