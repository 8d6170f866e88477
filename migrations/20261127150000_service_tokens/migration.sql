-- Service tokens (API.md section 12): scopes, an optional expiry, and the last use (at most once a
-- minute, with the masked address). Tokens issued before this had no scopes and were never handed
-- out by any path, so none exist to migrate.
ALTER TABLE "service_tokens" ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "service_tokens" ADD COLUMN "expires_at" TIMESTAMPTZ(3);
ALTER TABLE "service_tokens" ADD COLUMN "last_used_at" TIMESTAMPTZ(3);
ALTER TABLE "service_tokens" ADD COLUMN "last_used_ip" TEXT;
